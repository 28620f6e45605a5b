#include "dashboards/promql_refs.h"

#include <array>
#include <cctype>

namespace gpufleet::dashboards {
namespace {

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}
bool IsIdentChar(char c) {
  return IsIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Words that are never metric names where they stand.
bool IsKeyword(std::string_view w) {
  static constexpr std::array<std::string_view, 14> kWords = {
      "and", "or",         "unless",      "by",  "without", "on",  "ignoring",
      "group_left", "group_right", "offset", "bool", "inf",  "nan", "atan2"};
  for (std::string_view k : kWords) {
    if (k == w) return true;
  }
  return false;
}

// Words followed by a parenthesised list of label names.
bool TakesLabelList(std::string_view w) {
  return w == "by" || w == "without" || w == "on" || w == "ignoring" || w == "group_left" ||
         w == "group_right";
}

Status Error(size_t offset, std::string_view what) {
  return InvalidArgumentError("PromQL offset " + std::to_string(offset) + ": " +
                              std::string(what));
}

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

 private:
  void Word() {
    const size_t start = i_;
    while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
    const std::string_view w = s_.substr(start, i_ - start);
    size_t j = i_;
    while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j])) != 0) ++j;
    const bool paren_next = j < s_.size() && s_[j] == '(';
    if (TakesLabelList(w)) {
      if (paren_next) {
        i_ = j;
        label_list_pending_ = true;
      }
      return;
    }
    if (IsKeyword(w) || paren_next) return;  // operator or function / aggregation
    // `sum by (...)`, `count without (...)`: an aggregation before its clause.
    size_t k = j;
    while (k < s_.size() && IsIdentChar(s_[k])) ++k;
    const std::string_view next = s_.substr(j, k - j);
    if (next == "by" || next == "without") return;
    refs_.metrics.emplace_back(w);
    refs_.selectors.push_back({std::string(w), {}});
    selector_open_ = j < s_.size() && s_[j] == '{';  // its matchers follow
    if (selector_open_) i_ = j;
  }

  // The '(' after by/on/...: skip the label names inside.
  Status SkipLabelList() {
    while (i_ < s_.size() && s_[i_] != ')') ++i_;
    if (i_ >= s_.size()) return Error(i_, "unterminated label list");
    ++i_;
    return OkStatus();
  }

  StatusOr<std::string> String() {
    const char quote = s_[i_];
    const size_t start = i_++;
    std::string out;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (s_[i_] == '\\' && quote != '`' && i_ + 1 < s_.size()) ++i_;
      out += s_[i_++];
    }
    if (i_ >= s_.size()) return Error(start, "unterminated string");
    ++i_;
    return out;
  }

  Status Skip(char open, char close) {
    const size_t start = i_++;
    while (i_ < s_.size() && s_[i_] != close) {
      if (s_[i_] == open) return Error(i_, std::string("nested '") + open + "'");
      ++i_;
    }
    if (i_ >= s_.size()) return Error(start, std::string("unterminated '") + open + "'");
    ++i_;
    return OkStatus();
  }

  // {label op "value", ...}
  Status Matchers() {
    const size_t start = i_++;
    if (!selector_open_) refs_.selectors.push_back({});
    selector_open_ = false;
    Selector& selector = refs_.selectors.back();
    while (true) {
      while (i_ < s_.size() && (std::isspace(static_cast<unsigned char>(s_[i_])) != 0 ||
                                s_[i_] == ',')) {
        ++i_;
      }
      if (i_ >= s_.size()) return Error(start, "unterminated '{'");
      if (s_[i_] == '}') {
        ++i_;
        return OkStatus();
      }
      LabelMatcher m;
      const size_t name_start = i_;
      while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
      m.label = std::string(s_.substr(name_start, i_ - name_start));
      if (m.label.empty()) return Error(i_, "expected a label name");
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])) != 0) ++i_;
      const size_t op_start = i_;
      while (i_ < s_.size() && (s_[i_] == '=' || s_[i_] == '!' || s_[i_] == '~')) ++i_;
      m.op = std::string(s_.substr(op_start, i_ - op_start));
      if (m.op != "=" && m.op != "!=" && m.op != "=~" && m.op != "!~") {
        return Error(op_start, "expected =, !=, =~ or !~ after label " + m.label);
      }
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])) != 0) ++i_;
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'' && s_[i_] != '`')) {
        return Error(i_, "expected a quoted value for label " + m.label);
      }
      ASSIGN_OR_RETURN(m.value, String());
      // {__name__=""} names no metric (it matches series without a name).
      if (m.label == "__name__" && m.op == "=" && !m.value.empty()) {
        refs_.metrics.push_back(m.value);
        selector.metric = m.value;
      }
      selector.matchers.push_back(m);
      refs_.matchers.push_back(std::move(m));
    }
  }

 public:
  // Label lists (after by / on / ...) are skipped where they open; the
  // pending flag keeps a function call's '(' from being taken for one.
  StatusOr<PromqlRefs> Run() {
    while (i_ < s_.size()) {
      if (label_list_pending_ && s_[i_] == '(') {
        label_list_pending_ = false;
        RETURN_IF_ERROR(SkipLabelList());
        continue;
      }
      const size_t before = i_;
      const char c = s_[i_];
      if (c == '"' || c == '\'' || c == '`') {
        ASSIGN_OR_RETURN(std::string ignored, String());
        (void)ignored;
      } else if (c == '{') {
        RETURN_IF_ERROR(Matchers());
      } else if (c == '[') {
        RETURN_IF_ERROR(Skip('[', ']'));
      } else if (c == '}' || c == ']') {
        return Error(i_, std::string("unbalanced '") + c + "'");
      } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
        while (i_ < s_.size() && (IsIdentChar(s_[i_]) || s_[i_] == '.')) ++i_;
      } else if (IsIdentStart(c)) {
        Word();
      } else {
        ++i_;
      }
      if (i_ == before) ++i_;  // always make progress
    }
    return std::move(refs_);
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
  bool label_list_pending_ = false;
  bool selector_open_ = false;  // the last metric word is followed by '{'

  PromqlRefs refs_;
};

}  // namespace

StatusOr<PromqlRefs> ExtractPromqlRefs(std::string_view expr) {
  return Scanner(expr).Run();
}

}  // namespace gpufleet::dashboards
