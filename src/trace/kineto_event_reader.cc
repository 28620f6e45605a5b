#include "trace/kineto_event_reader.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace gpufleet::trace::kineto {
namespace {

namespace od = simdjson::ondemand;

std::string_view Trim(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' ||
                        t.back() == '\t')) {
    t.remove_suffix(1);
  }
  while (!t.empty() && (t.front() == ' ' || t.front() == '\n' || t.front() == '\t')) {
    t.remove_prefix(1);
  }
  return t;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string_view Unquote(std::string_view t) {
  t = Trim(t);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

std::string_view KeyOf(od::field& f) {
  const char* p = f.key().raw();
  const char* q = p;
  while (*q != '"') q += (*q == '\\' && q[1] != '\0') ? 2 : 1;
  return {p, static_cast<size_t>(q - p)};
}

bool MicrosTextToNs(std::string_view text, int64_t* ns) {
  std::string_view t = Unquote(text);
  if (t.empty()) return false;
  size_t i = 0;
  bool neg = false;
  if (t[0] == '-') {
    neg = true;
    ++i;
  }
  int64_t whole = 0;
  size_t digits = 0;
  while (i < t.size() && IsDigit(t[i])) {
    if (whole > (INT64_MAX / 1000 - 9) / 10) return false;  // ns would overflow
    whole = whole * 10 + (t[i] - '0');
    ++i;
    ++digits;
  }
  int64_t frac = 0;
  if (i < t.size() && t[i] == '.') {
    ++i;
    int scale = 100;
    bool round_up = false;
    size_t fd = 0;
    while (i < t.size() && IsDigit(t[i])) {
      if (fd < 3) {
        frac += (t[i] - '0') * scale;
        scale /= 10;
      } else if (fd == 3) {
        round_up = t[i] >= '5';
      }
      ++fd;
      ++i;
    }
    if (round_up) ++frac;
    digits += fd;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    double d = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(d) ||
        std::fabs(d) > 9.0e15) {
      return false;
    }
    *ns = std::llround(d * 1000.0);
    return true;
  }
  if (i != t.size()) return false;
  int64_t v = whole * 1000 + frac;
  *ns = neg ? -v : v;
  return true;
}

bool TokenToInt(std::string_view token, int64_t* out) {
  std::string_view t = Unquote(token);
  if (t.empty()) return false;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
    if (ec != std::errc() || p != t.data() + t.size()) return false;
    *out = static_cast<int64_t>(v);
    return true;
  }
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  if (ec == std::errc() && p == t.data() + t.size()) return true;
  double d = 0;
  auto [q, ec2] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec2 != std::errc() || q != t.data() + t.size() || !std::isfinite(d) ||
      std::fabs(d) > 9.0e18 || d != std::floor(d)) {
    return false;
  }
  *out = static_cast<int64_t>(d);
  return true;
}

simdjson::error_code EventReader::Read(od::value v, Staged& s) {
  od::json_type type;
  auto err = v.type().get(type);
  if (err) return err;
  if (type != od::json_type::object) return simdjson::SUCCESS;  // s.ph == 0: skipped
  od::object obj;
  if ((err = v.get_object().get(obj))) return err;
  for (auto fr : obj) {
    od::field f;
    if ((err = std::move(fr).get(f))) return err;
    std::string_view key = KeyOf(f);
    od::value val = f.value();
    std::string_view sv;
    if (key == "ph") {
      if (!val.get_string().get(sv) && !sv.empty()) s.ph = sv[0];
    } else if (key == "cat") {
      if (val.get_string().get(sv)) continue;
      s.cat = sv;
    } else if (key == "name") {
      if (val.get_string().get(sv)) continue;
      s.name = sv;
    } else if (key == "pid" || key == "tid") {
      sv = val.raw_json_token();
      (key == "pid" ? s.pid_text : s.tid_text) = Trim(sv);
    } else if (key == "ts") {
      sv = val.raw_json_token();
      s.has_ts = MicrosTextToNs(sv, &s.ts_ns);
      if (!s.has_ts) s.bad_number = true;
    } else if (key == "dur") {
      sv = val.raw_json_token();
      if (!MicrosTextToNs(sv, &s.dur_ns)) s.bad_number = true;
    } else if (key == "id") {
      sv = val.raw_json_token();
      if (!TokenToInt(sv, &s.flow_id)) s.flow_id = -1;
    } else if (key == "args") {
      // Host operator args (shapes, strides, input values: often most of
      // the event's bytes) hold nothing the timeline uses; left unread, the
      // on-demand parser skips them in one pass. `cat` precedes `args` in
      // Kineto's output; when it does not, the args are read as usual.
      if (s.cat == "cpu_op" || s.cat == "user_annotation" || s.cat == "python_function") continue;
      od::object args;
      if (val.get_object().get(args)) continue;
      if ((err = ReadArgs(args, s))) return err;
    }
  }
  return simdjson::SUCCESS;
}

simdjson::error_code EventReader::ReadArgs(od::object args, Staged& s) {
  simdjson::error_code err;
  for (auto fr : args) {
    od::field f;
    if ((err = std::move(fr).get(f))) return err;
    std::string_view key = KeyOf(f);
    od::value val = f.value();
    std::string_view sv;
    int64_t n = 0;
    auto number = [&](int64_t* out) -> simdjson::error_code {
      sv = val.raw_json_token();
      if (TokenToInt(sv, &n)) *out = n;
      return simdjson::SUCCESS;
    };
    int64_t tmp = -1;
    switch (key.empty() ? '\0' : key[0]) {
      case 'c':
        if (key == "correlation" && (err = number(&s.correlation))) return err;
        break;
      case 'd':
        if (key == "device") {
          if ((err = number(&tmp))) return err;
          if (tmp >= 0 && tmp < 1 << 20) s.device = static_cast<int>(tmp);
        } else if (key == "dtype" && !val.get_string().get(sv)) {
          s.dtype = sv;
        }
        break;
      case 's':
        if (key == "stream" && (err = number(&s.stream))) return err;
        break;
      case 'b':
        if (key == "bytes" && (err = number(&s.bytes))) return err;
        break;
      case 'C':
        if (key == "Collective name" && !val.get_string().get(sv)) s.coll_op = sv;
        break;
      case 'I':
        if (key == "In msg nelems" && (err = number(&s.nelems))) return err;
        break;
      case 'P':
        if (key == "Process Group Name" && !val.get_string().get(sv)) s.comm = sv;
        break;
      case 'S':
        if (key == "Seq" && (err = number(&s.seq))) return err;
        break;
      case 'G':
        if (key == "Group size") {
          if ((err = number(&tmp))) return err;
          if (tmp > 0 && tmp < 1 << 24) s.group_size = static_cast<int>(tmp);
        }
        break;
      case 'n':
      case 'l':
        if ((key == "name" || key == "labels") && !val.get_string().get(sv)) s.meta = sv;
        break;
      default:
        break;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace gpufleet::trace::kineto
