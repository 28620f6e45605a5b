#include "server/series_api.h"

#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>

#include "server/json_out.h"

namespace gpufleet {
namespace {

bool Matches(const StoredLabels& l, const Labels& match) {
  for (const auto& [k, v] : match.pairs()) {
    if (l.Get(k) != v) return false;
  }
  return true;
}

// Value at each grid point: the latest point in (t - step, t].
void Resample(std::span<const WindowPoint> pts, const SeriesQuery& q,
              std::vector<std::optional<double>>& v) {
  const int64_t n = q.points();
  v.assign(static_cast<size_t>(n), std::nullopt);
  size_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t t = q.TimeAt(i);
    while (j < pts.size() && pts[j].timestamp_ns <= t) ++j;
    if (j > 0 && pts[j - 1].timestamp_ns > t - q.step_ns)
      v[static_cast<size_t>(i)] = pts[j - 1].value;
  }
}

void SortAndLimit(std::vector<SeriesData>& s, int64_t limit, size_t& truncated) {
  std::sort(s.begin(), s.end(),
            [](const SeriesData& a, const SeriesData& b) { return a.labels < b.labels; });
  if (s.size() > static_cast<size_t>(limit)) {
    truncated = s.size() - static_cast<size_t>(limit);
    s.resize(static_cast<size_t>(limit));
  }
}

}  // namespace

SeriesAnswer EvaluateWindow(const WindowStore& window, const SeriesQuery& q) {
  SeriesAnswer a;
  const size_t n = static_cast<size_t>(q.points());
  // Points in (from - step, to] can land on the grid.
  const int64_t from_ns = q.from_ns - q.step_ns + 1;
  std::vector<std::optional<double>> v;
  if (!q.aggregate.empty()) {
    // Mean per group, accumulated as the series stream by.
    struct Acc {
      std::vector<double> sum;
      std::vector<int> count;
    };
    std::map<std::string, Acc> groups;
    window.ForEach(q.metric, from_ns, q.to_ns,
                   [&](const StoredLabels& l, std::span<const WindowPoint> pts) {
                     if (!Matches(l, q.match)) return;
                     Acc& acc = groups[std::string(l.Get(q.aggregate))];
                     if (acc.sum.empty()) {
                       acc.sum.assign(n, 0);
                       acc.count.assign(n, 0);
                     }
                     Resample(pts, q, v);
                     for (size_t i = 0; i < n; ++i) {
                       if (v[i].has_value()) {
                         acc.sum[i] += *v[i];
                         acc.count[i]++;
                       }
                     }
                   });
    for (auto& [value, acc] : groups) {
      SeriesData d;
      d.labels.Set(q.aggregate, value);
      d.v.resize(n);
      for (size_t i = 0; i < n; ++i) {
        if (acc.count[i] > 0) d.v[i] = acc.sum[i] / acc.count[i];
      }
      a.series.push_back(std::move(d));
    }
    SortAndLimit(a.series, q.limit, a.truncated);
    return a;
  }
  // Two passes, so memory stays within limit x points however many match:
  // the label sets first, then the points of the `limit` first.
  struct Named {
    Labels labels;
    uint64_t series_id;
  };
  std::vector<Named> names;
  window.ForEachSeries(q.metric, from_ns, q.to_ns,
                       [&](uint64_t id, const StoredLabels& l, std::span<const WindowPoint>) {
                         if (Matches(l, q.match)) names.push_back({l.ToLabels(), id});
                       });
  std::sort(names.begin(), names.end(),
            [](const Named& x, const Named& y) { return x.labels < y.labels; });
  if (names.size() > static_cast<size_t>(q.limit)) {
    a.truncated = names.size() - static_cast<size_t>(q.limit);
    names.resize(static_cast<size_t>(q.limit));
  }
  std::unordered_map<uint64_t, size_t> index;  // series id -> row
  a.series.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    index.emplace(names[i].series_id, i);
    a.series[i].labels = std::move(names[i].labels);
    a.series[i].labels.Remove("__name__");
  }
  window.ForEachSeries(q.metric, from_ns, q.to_ns,
                       [&](uint64_t id, const StoredLabels&, std::span<const WindowPoint> pts) {
                         auto it = index.find(id);
                         if (it == index.end()) return;
                         Resample(pts, q, a.series[it->second].v);
                       });
  for (SeriesData& d : a.series) {
    if (d.v.empty()) d.v.assign(n, std::nullopt);  // pruned between the passes
  }
  return a;
}

StatusOr<SeriesAnswer> AnswerSeries(const WindowStore& window, LongtermReader* longterm,
                                    const SeriesQuery& q, int64_t now_ns) {
  const int64_t window_start = now_ns - window.options().retention_ns;
  SeriesAnswer a;
  if (q.from_ns >= window_start) {
    a = EvaluateWindow(window, q);
  } else if (longterm == nullptr) {
    a = EvaluateWindow(window, q);
    a.partial = true;
    a.warning =
        "the range starts before the server's window and no long-term store is "
        "configured ([longterm] query_url): only the window's samples are here";
  } else {
    StatusOr<std::vector<SeriesData>> lt = longterm->Query(q);
    if (lt.ok()) {
      a.source = "longterm";
      a.series = std::move(*lt);
      SortAndLimit(a.series, q.limit, a.truncated);
    } else {
      a = EvaluateWindow(window, q);
      a.partial = true;
      a.warning = lt.status().message() + "; only the window's samples are here";
    }
  }
  return a;
}

std::string SeriesAnswerJson(const SeriesQuery& q, const SeriesAnswer& a) {
  std::string out = "{\"metric\":";
  AppendJsonString(q.metric, out);
  out += ",\"unit\":";
  AppendJsonString(q.unit, out);
  out += ",\"source\":";
  AppendJsonString(a.source, out);
  out += a.partial ? ",\"partial\":true" : ",\"partial\":false";
  out += ",\"from\":";
  AppendJsonNumber(static_cast<double>(q.from_ns) / 1e9, out);
  out += ",\"to\":";
  AppendJsonNumber(static_cast<double>(q.to_ns) / 1e9, out);
  out += ",\"step\":";
  AppendJsonNumber(static_cast<double>(q.step_ns) / 1e9, out);
  out += ",\"truncated\":" + std::to_string(a.truncated);
  if (!a.warning.empty()) {
    out += ",\"warning\":";
    AppendJsonString(a.warning, out);
  }
  // One time axis, written once and shared by every series.
  std::string t = "[";
  for (int64_t i = 0; i < q.points(); ++i) {
    if (i > 0) t += ',';
    AppendJsonNumber(static_cast<double>(q.TimeAt(i)) / 1e9, t);
  }
  t += ']';
  out += ",\"series\":[";
  for (size_t s = 0; s < a.series.size(); ++s) {
    if (s > 0) out += ',';
    out += "{\"labels\":{";
    bool first = true;
    for (const auto& [k, v] : a.series[s].labels.pairs()) {
      if (!first) out += ',';
      first = false;
      AppendJsonKey(k, out);
      AppendJsonString(v, out);
    }
    out += "},\"t\":";
    out += t;
    out += ",\"v\":[";
    for (size_t i = 0; i < a.series[s].v.size(); ++i) {
      if (i > 0) out += ',';
      AppendJsonNumber(a.series[s].v[i], out);
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

}  // namespace gpufleet
