#include "detect/replay_reader.h"

#include <string.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "core/strings.h"
#include "core/text_hash.h"
#include "expo/exposition_parser.h"

namespace gpufleet::detect {
namespace {

constexpr size_t kMaxErrors = 20;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kMaxMs = 4'000'000'000'000;  // ms to year 2096: differences of ns fit int64

std::string_view TrimLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ' ||
                           line.back() == '\t')) {
    line.remove_suffix(1);
  }
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line;
}

// The timestamp token of a sample line, by a cheap scan (the full parse
// happens later): the series part ends at the '}' closing the label set
// (quotes respected) or at the first blank; then "value [timestamp]", an
// exemplar after " # " ignored.
std::optional<double> QuickTimestamp(std::string_view line, size_t* series_end) {
  // Only numbers follow a label set, so its '}' is the line's last one,
  // unless an exemplar ("# {trace_id=...} 1 1.5") follows: then the last
  // '{' comes after "# ". Either way no need to walk the labels' quotes.
  // (memrchr, glibc's, is vectorized; string_view::rfind walks byte by byte.)
  size_t i = std::string_view::npos;
  if (const void* close = memrchr(line.data(), '}', line.size()); close != nullptr) {
    i = static_cast<size_t>(static_cast<const char*>(close) - line.data());
    const void* brace = memrchr(line.data(), '{', i);
    const size_t open = brace == nullptr
                            ? std::string_view::npos
                            : static_cast<size_t>(static_cast<const char*>(brace) - line.data());
    if (open != std::string_view::npos && open >= 2 && line.substr(open - 2, 2) == "# ") {
      i = std::string_view::npos;  // an exemplar, or "# {" in a value: walk
    } else {
      ++i;
    }
  }
  if (i == std::string_view::npos) {
    i = line.find_first_of("{ \t");
    if (i == std::string_view::npos) return std::nullopt;
    if (line[i] == '{') {
      bool quoted = false;
      for (++i; i < line.size(); ++i) {
        char c = line[i];
        if (quoted && c == '\\') {
          ++i;
        } else if (c == '"') {
          quoted = !quoted;
        } else if (!quoted && c == '}') {
          break;
        }
      }
      if (i >= line.size()) return std::nullopt;
      ++i;
    }
  }
  *series_end = i;
  // "value timestamp", blanks around and between, up to the end or " # ".
  const char* p = line.data() + i;
  const char* end = line.data() + line.size();
  if (const void* hash = memchr(p, '#', static_cast<size_t>(end - p)); hash != nullptr) {
    std::string_view rest(p, static_cast<size_t>(end - p));
    if (size_t ex = rest.find(" # "); ex != std::string_view::npos) end = p + ex;
  }
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (end > p && (blank(end[-1]) || end[-1] == '\r' || end[-1] == '\n')) --end;
  while (p < end && blank(*p)) ++p;
  while (p < end && !blank(*p)) ++p;  // the value
  if (p == end) return std::nullopt;  // value only
  while (p < end && blank(*p)) ++p;
  std::string_view ts(p, static_cast<size_t>(end - p));
  double v = 0;
  if (ParseSimpleDecimal(ts, &v)) return v;  // the usual seconds with a fraction, exactly
  auto [q, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), v);
  if (ec != std::errc() || q != ts.data() + ts.size()) return std::nullopt;
  return v;
}

// The value of the __name__ label in a label set written first on a line
// (`promtool tsdb dump`), or "" when there is none or it holds an escape.
std::string_view DumpMetricName(std::string_view line) {
  for (size_t at = line.find("__name__=\""); at != std::string_view::npos;
       at = line.find("__name__=\"", at + 1)) {
    size_t before = at;
    while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t')) --before;
    if (before == 0 || (line[before - 1] != '{' && line[before - 1] != ',')) continue;
    const size_t begin = at + 10, end = line.find('"', begin);
    if (end == std::string_view::npos) return {};
    std::string_view name = line.substr(begin, end - begin);
    return name.find('\\') == std::string_view::npos ? name : std::string_view();
  }
  return {};
}

struct TextHasher {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return TextHash(s); }
};

// The index's identity of a sample line's series: a hash of its text up to
// `series_end` (QuickTimestamp's), name and label set as written. The index
// hashes lines both forward and backward; both must agree.
uint64_t SeriesTextHash(std::string_view line, size_t series_end) {
  return TextHash(line.substr(0, series_end));
}

// JSON scanning for export lines: enough to find the "metric" object and
// walk the two arrays in place.
size_t SkipWs(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  return i;
}

size_t SkipString(std::string_view s, size_t i) {  // s[i] == '"'
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

size_t SkipValue(std::string_view s, size_t i) {
  i = SkipWs(s, i);
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      i = SkipString(s, i);
      if (i == std::string_view::npos) return i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    ++i;
  }
  return std::string_view::npos;
}

// The next element of an array at `pos` (just after '[' or an element).
// Returns false at ']' or on a syntax error (`bad` set). Non-numbers give NaN.
bool NextArrayNumber(std::string_view s, size_t& pos, double& out, bool& bad) {
  size_t i = SkipWs(s, pos);
  if (i < s.size() && s[i] == ',') i = SkipWs(s, i + 1);
  if (i >= s.size()) {
    bad = true;
    return false;
  }
  if (s[i] == ']') return false;
  size_t end = SkipValue(s, i);
  if (end == std::string_view::npos || end <= i) {
    bad = true;
    return false;
  }
  std::string_view tok = TrimLine(s.substr(i, end - i));
  if (!tok.empty() && tok.front() == '"') tok = tok.substr(1, tok.size() - 2);
  double v = std::nan("");
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) v = std::nan("");
  out = v;
  pos = end;
  return true;
}

// Captures the one sample of a line, with its labels and its key (a line
// whose series was seen before is not parsed whole: NextText). Label values
// may point into the parser's scratch space (unescaped values), so they are
// copied here.
class LineHandler final : public ExpositionHandler {
 public:
  void OnSample(const ExpoSample& s) override {
    got = true;
    value = s.value;
    timestamp_ms = s.timestamp_ms;
    key.assign(s.name);
    key += '{';
    key += s.raw_labels;
    labels = Labels();
    labels.Set("__name__", s.name);
    for (const ExpoLabel& e : s.labels) labels.Set(e.name, e.value);
  }
  void OnError(const ExpoError& e) override {
    error = "column " + std::to_string(e.column) + ": " + e.message;
  }
  bool got = false;
  std::string key;  // name{raw labels
  Labels labels;
  double value = 0;
  std::optional<int64_t> timestamp_ms;
  std::string error;
};

}  // namespace

struct ReplayReader::Input {
  std::string name;
  std::string_view text;
  bool json = false;
  ExpoDialect dialect = ExpoDialect::kPrometheusText;
  struct Run {
    size_t begin, end, line;
  };
  std::vector<Run> runs;
  // Byte offsets, ascending, of sample lines older than their series'
  // previous sample in the file: late arrivals, dropped.
  std::vector<size_t> late;
};

struct ReplayReader::Cursor {
  Input* in;
  size_t pos, end, line;
  size_t late = 0;  // index of the next late line at or after pos
  // JSON runs: positions in the two arrays.
  size_t values = 0, stamps = 0;
  const Labels* labels = nullptr;
  Known* last = nullptr;  // the series of the last sample delivered (text runs)
  bool started = false;
  int64_t ts_ns = 0;
  double value = 0;
};

// A series seen before, by "name{raw labels" (its identity in a file).
struct ReplayReader::Known {
  std::unique_ptr<Labels> labels;
  std::string_view key;  // the map's own key
  // The series whose line came after this one's last time: files repeat
  // their order (a snapshot per scrape, or one series after another), so
  // the next line is most often that series', found by one comparison of
  // its text instead of hashing it.
  Known* next = nullptr;
};

struct ReplayReader::Interned {
  std::unordered_map<std::string, Known, TextHasher, std::equal_to<>> by_key;
};

RecordingForm FormOf(std::string_view text) {
  const size_t first = SkipWs(text, 0);
  if (first >= text.size() || text[first] != '{') return RecordingForm::kText;
  const size_t second = SkipWs(text, first + 1);
  return second < text.size() && text[second] == '"' ? RecordingForm::kExportLines
                                                     : RecordingForm::kTsdbDump;
}

ReplayReader::ReplayReader() : interned_(std::make_unique<Interned>()) {}
ReplayReader::~ReplayReader() = default;

Status ReplayReader::AddFile(const std::string& path) {
  ASSIGN_OR_RETURN(FileContents f, FileContents::Open(path));
  std::string_view text = f.view();
  files_.push_back(std::move(f));
  AddBuffer(path, text);
  return OkStatus();
}

void ReplayReader::AddBuffer(std::string_view name, std::string_view text) {
  auto in = std::make_unique<Input>();
  in->name = std::string(name);
  in->text = text;
  // A `promtool tsdb dump` line is text with the name among the labels.
  in->json = FormOf(text) == RecordingForm::kExportLines;
  std::string_view tail = TrimLine(text.substr(text.size() > 64 ? text.size() - 64 : 0));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.remove_suffix(1);
  in->dialect = tail.ends_with("# EOF") ? ExpoDialect::kOpenMetrics : ExpoDialect::kPrometheusText;
  ++stats_.files;
  Index(*in);
  inputs_.push_back(std::move(in));
}

void ReplayReader::Error(const Input& in, size_t line, std::string_view what) {
  if (stats_.errors.size() < kMaxErrors) {
    stats_.errors.push_back(in.name + ":" + std::to_string(line) + ": " + std::string(what));
  }
}

void ReplayReader::Index(Input& in) {
  std::string_view t = in.text;
  size_t pos = 0, line = 0;
  Input::Run run{0, 0, 1};
  bool open = false;
  double last = -1e300;
  // Each series' newest timestamp so far, in file order, by a hash of its
  // text (name and label set as written). Until a timestamp first steps
  // back, the file is in time order and no line can be late, so series are
  // not identified (the usual recording costs no hash per line). From the
  // step on they are; the in-order part before it is added to `newest`
  // backward from the step, only as far as a later line needs: a line of
  // time ts can only be late against lines newer than ts.
  std::unordered_map<uint64_t, double> newest;
  bool by_series = false;
  size_t back = 0;  // lines of the in-order part from `back` on are in `newest`
  double before_back = std::numeric_limits<double>::infinity();  // the line before it: its time
  auto extend_back = [&](double ts) {
    if (before_back <= ts) return;
    while (back > 0) {
      const void* nl = back >= 2 ? memrchr(t.data(), '\n', back - 1) : nullptr;
      const size_t start =
          nl == nullptr ? 0 : static_cast<size_t>(static_cast<const char*>(nl) - t.data()) + 1;
      std::string_view l = TrimLine(t.substr(start, back - start));
      size_t series_end = 0;
      std::optional<double> line_ts;
      if (!l.empty() && l.front() != '#') line_ts = QuickTimestamp(l, &series_end);
      if (line_ts && *line_ts <= ts) {  // in time order: the rest are older still
        before_back = *line_ts;
        return;
      }
      if (line_ts) {
        double& n = newest.try_emplace(SeriesTextHash(l, series_end), *line_ts).first->second;
        n = std::max(n, *line_ts);
      }
      back = start;
    }
  };
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    size_t end = nl == std::string_view::npos ? t.size() : nl + 1;
    ++line;
    std::string_view l = TrimLine(t.substr(pos, end - pos));
    if (!l.empty() && l.front() != '#') {
      if (in.json) {
        in.runs.push_back({pos, end, line});
      } else {
        size_t series_end = 0;
        std::optional<double> ts = QuickTimestamp(l, &series_end);
        if (ts && !by_series && *ts < last) {
          by_series = true;
          back = pos;
        }
        if (ts && by_series) {
          extend_back(*ts);
          // A sample older than its own series' previous one arrived late
          // (a node whose clock stepped back): a TSDB rejects it as out of
          // order, and merging it in would interleave two stretches of time.
          auto [it, added] = newest.try_emplace(SeriesTextHash(l, series_end), *ts);
          if (!added && *ts < it->second) {
            in.late.push_back(pos);
            ++stats_.late;
          } else {
            it->second = *ts;
          }
        }
        if (open && ts && *ts < last) {
          ++stats_.backwards;
          run.end = pos;
          in.runs.push_back(run);
          open = false;
        }
        if (!open) {
          run = {pos, t.size(), line};
          open = true;
        }
        if (ts) last = *ts;
      }
    }
    pos = end;
  }
  if (open) in.runs.push_back(run);
  stats_.runs += in.runs.size();
}

ReplayReader::Known* ReplayReader::Intern(std::string_view key, Labels labels) {
  auto [it, added] = interned_->by_key.try_emplace(std::string(key));
  if (added) {
    it->second.labels = std::make_unique<Labels>(std::move(labels));
    it->second.key = it->first;
  }
  return &it->second;
}

bool ReplayReader::NextText(Cursor& c) {
  std::string_view t = c.in->text;
  ExpoParseOptions opts;
  opts.dialect = c.in->dialect;
  while (c.pos < c.end) {
    size_t nl = t.find('\n', c.pos);
    size_t end = nl == std::string_view::npos || nl >= c.end ? c.end : nl + 1;
    const size_t line_start = c.pos;
    std::string_view line = t.substr(line_start, end - line_start);
    size_t line_no = c.line;
    c.pos = end;
    ++c.line;
    std::string_view trimmed = TrimLine(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    const std::vector<size_t>& late = c.in->late;
    while (c.late < late.size() && late[c.late] < line_start) ++c.late;
    if (c.late < late.size() && late[c.late] == line_start) continue;
    // A series seen before is found by its text and the '}' after it: the
    // series that followed the last line's last time, else by the text up
    // to the first '}' (a '}' inside a quoted value cuts the text where no
    // series' text ends). Identical text parses identically, so only the
    // rest of the line, after the blanks that must follow the label set,
    // is parsed.
    const Labels* labels = nullptr;
    double value = 0;
    std::optional<int64_t> timestamp_ms;
    Known* known = c.last != nullptr ? c.last->next : nullptr;
    if (known == nullptr || trimmed.size() <= known->key.size() ||
        trimmed[known->key.size()] != '}' || !trimmed.starts_with(known->key)) {
      const size_t close = trimmed.find('}');
      auto it = close == std::string_view::npos ? interned_->by_key.end()
                                                : interned_->by_key.find(trimmed.substr(0, close));
      known = it == interned_->by_key.end() ? nullptr : &it->second;
    }
    const size_t after = known == nullptr ? 0 : known->key.size() + 1;
    if (known != nullptr && after < trimmed.size() &&
        (trimmed[after] == ' ' || trimmed[after] == '\t')) {
      std::string_view rest = TrimLine(trimmed.substr(after));
      ExpoSampleTail tail;
      ExpoTailError error;
      if (!ParseExpoSampleTail(rest, c.in->dialect == ExpoDialect::kOpenMetrics,
                               trimmed.substr(0, trimmed.find('{')), &tail, &error)) {
        ++stats_.malformed;
        const size_t column = static_cast<size_t>(rest.data() - line.data()) + error.offset + 1;
        Error(*c.in, line_no, "column " + std::to_string(column) + ": " + error.message);
        continue;
      }
      labels = known->labels.get();
      value = tail.value;
      timestamp_ms = tail.timestamp_ms;
    } else {
      LineHandler h;
      // `promtool tsdb dump` writes the name among the labels,
      // {__name__="m", a="b"} 1 1733300000000: read as m{__name__="m", ...}.
      std::string named;
      const std::string_view name = trimmed.front() == '{' ? DumpMetricName(trimmed) : "";
      if (!name.empty()) named = std::string(name) + std::string(trimmed);
      ParseExposition(name.empty() ? line : named, h, opts);
      if (!h.got) {
        ++stats_.malformed;
        Error(*c.in, line_no, h.error.empty() ? "not a sample" : h.error);
        continue;
      }
      value = h.value;
      timestamp_ms = h.timestamp_ms;
      if (timestamp_ms && *timestamp_ms <= kMaxMs && *timestamp_ms >= -kMaxMs &&
          !std::isnan(value)) {
        // The key is the line's own text (without the name put in front).
        known = Intern(std::string_view(h.key).substr(name.size()), std::move(h.labels));
        labels = known->labels.get();
      }
    }
    if (!timestamp_ms || *timestamp_ms > kMaxMs || *timestamp_ms < -kMaxMs) {
      ++stats_.no_timestamp;  // none, or beyond what int64 nanoseconds hold
      continue;
    }
    if (std::isnan(value)) {
      ++stats_.nan;
      continue;
    }
    c.labels = labels;
    if (c.last != nullptr) c.last->next = known;
    c.last = known;
    const int64_t ts = *timestamp_ms * kNsPerMs;
    if (c.started && ts < c.ts_ns) ++stats_.backwards;  // the index's quick scan missed it
    c.started = true;
    c.ts_ns = ts;
    c.value = value;
    return true;
  }
  return false;
}

bool ReplayReader::NextJson(Cursor& c) {
  std::string_view line = c.in->text.substr(c.pos, c.end - c.pos);
  if (c.labels == nullptr) {  // first call: find the parts
    size_t i = SkipWs(line, 0);
    bool bad = i >= line.size() || line[i] != '{';
    std::string_view metric;
    size_t values = 0, stamps = 0;
    if (!bad) ++i;
    while (!bad) {
      i = SkipWs(line, i);
      if (i < line.size() && line[i] == '}') break;
      if (i >= line.size() || line[i] != '"') {
        bad = true;
        break;
      }
      size_t kend = SkipString(line, i);
      if (kend == std::string_view::npos) {
        bad = true;
        break;
      }
      std::string_view key = line.substr(i + 1, kend - i - 2);
      i = SkipWs(line, kend);
      if (i >= line.size() || line[i] != ':') {
        bad = true;
        break;
      }
      size_t vstart = SkipWs(line, i + 1);
      size_t vend = SkipValue(line, vstart);
      if (vend == std::string_view::npos) {
        bad = true;
        break;
      }
      if (key == "metric") metric = line.substr(vstart, vend - vstart);
      if (key == "values" && vstart < line.size() && line[vstart] == '[') values = vstart + 1;
      if (key == "timestamps" && vstart < line.size() && line[vstart] == '[') stamps = vstart + 1;
      i = SkipWs(line, vend);
      if (i < line.size() && line[i] == ',') ++i;
    }
    Labels labels;
    if (!bad && !metric.empty()) {
      nlohmann::json m = nlohmann::json::parse(metric, nullptr, /*allow_exceptions=*/false);
      if (m.is_object()) {
        for (const auto& [k, v] : m.items()) {
          if (v.is_string()) labels.Set(k, v.get<std::string>());
        }
      } else {
        bad = true;
      }
    }
    if (bad || metric.empty() || values == 0 || stamps == 0 || labels.Get("__name__").empty()) {
      ++stats_.malformed;
      Error(*c.in, c.line, "not a VictoriaMetrics export line ({\"metric\":{\"__name__\":...},"
                           "\"values\":[...],\"timestamps\":[...]})");
      return false;
    }
    // The key first: an argument moved from may be evaluated before the other.
    const std::string key = "json:" + labels.ToString();
    c.labels = Intern(key, std::move(labels))->labels.get();
    c.values = values;
    c.stamps = stamps;
  }
  while (true) {
    double v = 0, ts = 0;
    bool bad = false;
    bool has_v = NextArrayNumber(line, c.values, v, bad);
    bool has_t = NextArrayNumber(line, c.stamps, ts, bad);
    if (bad || has_v != has_t) {
      ++stats_.malformed;
      Error(*c.in, c.line, "values and timestamps differ in length or are malformed");
      return false;
    }
    if (!has_v) return false;
    if (!(ts > -kMaxMs && ts < kMaxMs)) {  // NaN, or beyond int64 nanoseconds
      ++stats_.no_timestamp;
      continue;
    }
    if (std::isnan(v)) {
      ++stats_.nan;
      continue;
    }
    if (c.started && ts < c.ts_ns / static_cast<double>(kNsPerMs)) ++stats_.backwards;
    c.started = true;
    c.ts_ns = static_cast<int64_t>(ts) * kNsPerMs;
    c.value = v;
    return true;
  }
}

bool ReplayReader::Advance(Cursor& c) { return c.in->json ? NextJson(c) : NextText(c); }

void ReplayReader::ForEach(const std::function<void(const Labels&, int64_t, double)>& fn) {
  std::vector<Cursor> cursors;
  for (auto& in : inputs_) {
    for (const Input::Run& r : in->runs) {
      Cursor c{in.get(), r.begin, r.end, r.line};
      c.late = static_cast<size_t>(std::lower_bound(in->late.begin(), in->late.end(), r.begin) -
                                   in->late.begin());
      cursors.push_back(c);
    }
  }
  using Entry = std::tuple<int64_t, size_t>;  // (timestamp, cursor): min-heap
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  for (size_t k = 0; k < cursors.size(); ++k) {
    if (Advance(cursors[k])) heap.emplace(cursors[k].ts_ns, k);
  }
  while (!heap.empty()) {
    size_t k = std::get<1>(heap.top());
    heap.pop();
    Cursor& c = cursors[k];
    // A cursor stays in front while its next sample still comes first (most
    // of a run): the heap is touched once per change of run.
    while (true) {
      ++stats_.samples;
      fn(*c.labels, c.ts_ns, c.value);
      if (!Advance(c)) break;
      if (!heap.empty() && heap.top() < Entry{c.ts_ns, k}) {
        heap.emplace(c.ts_ns, k);
        break;
      }
    }
  }
}

}  // namespace gpufleet::detect
