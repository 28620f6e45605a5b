#include "server/series_query.h"

#include "core/clock.h"
#include "core/strings.h"

namespace gpufleet {
namespace {

bool NameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && c >= '0' && c <= '9');
}

}  // namespace

StatusOr<SeriesQuery> ParseSeriesQuery(const QueryParams& params, int64_t now_ns,
                                       const MetricCatalog& catalog) {
  SeriesQuery q;
  std::optional<std::string> metric = Param(params, "metric");
  if (!metric.has_value() || metric->empty()) {
    return InvalidArgumentError("metric: required (a canonical metric name, see /api/v1/schema)");
  }
  const MetricDef* def = catalog.Find(*metric);
  if (def == nullptr) {
    std::vector<std::string_view> names;
    for (const MetricDef& m : catalog.metrics()) names.push_back(m.name);
    std::string_view hint = metric->size() < 128 ? SuggestClosest(*metric, names) : "";
    return InvalidArgumentError("metric: '" + metric->substr(0, 64) +
                                "' is not a canonical metric" +
                                (hint.empty() ? "" : " (did you mean " + std::string(hint) + "?)"));
  }
  q.metric = def->name;
  q.unit = def->unit.empty() ? "count" : def->unit;
  for (const char* label : {"gpu_uuid", "vendor", "model", "cloud", "node"}) {
    std::optional<std::string> v = Param(params, label);
    if (v.has_value() && !v->empty()) q.match.Set(label, *v);
  }
  if (std::optional<std::string> a = Param(params, "aggregate"); a.has_value() && !a->empty()) {
    if (*a != "vendor" && *a != "model" && *a != "cloud" && *a != "node") {
      return InvalidArgumentError("aggregate: '" + a->substr(0, 32) +
                                  "': expected vendor, model, cloud or node");
    }
    q.aggregate = *a;
  }
  ASSIGN_OR_RETURN(QueryRange range,
                   ParseQueryRange(Param(params, "from"), Param(params, "to"), "-15m", now_ns));
  q.from_ns = range.from_ns;
  q.to_ns = range.to_ns;
  q.step_ns = 15 * kNsPerSecond;
  if (std::optional<std::string> s = Param(params, "step"); s.has_value()) {
    ASSIGN_OR_RETURN(q.step_ns, ParseQueryStepNs("step", *s));
  }
  if ((q.to_ns - q.from_ns) / q.step_ns + 1 > kMaxPointsPerSeries) {
    return InvalidArgumentError("step: " + std::to_string((q.to_ns - q.from_ns) / q.step_ns + 1) +
                                " points per series over the maximum of " +
                                std::to_string(kMaxPointsPerSeries) +
                                "; raise step or shorten the range");
  }
  if (std::optional<std::string> l = Param(params, "limit"); l.has_value()) {
    ASSIGN_OR_RETURN(q.limit, ParseQueryLimit("limit", *l, kSeriesMaxLimit));
    if (q.limit == 0) return InvalidArgumentError("limit: 0: expected at least 1");
  }
  if (q.limit * q.points() > kMaxPointsPerAnswer) {
    return InvalidArgumentError("limit: " + std::to_string(q.limit) + " series x " +
                                std::to_string(q.points()) + " points is over the maximum of " +
                                std::to_string(kMaxPointsPerAnswer) +
                                " points per answer; lower limit or raise step");
  }
  return q;
}

StatusOr<std::pair<std::string, Labels>> ParseSeriesSelector(std::string_view text) {
  auto bad = [&](size_t at, std::string_view what) {
    return InvalidArgumentError("series selector at offset " + std::to_string(at) + ": " +
                                std::string(what));
  };
  size_t i = 0;
  while (i < text.size() && NameChar(text[i], i == 0)) ++i;
  if (i == 0) return bad(0, "expected a metric name");
  std::pair<std::string, Labels> out;
  out.first.assign(text.substr(0, i));
  if (i == text.size()) return out;
  if (text[i] != '{') return bad(i, "expected '{' or the end");
  ++i;
  while (true) {
    if (i < text.size() && text[i] == '}') {
      ++i;
      break;
    }
    size_t start = i;
    while (i < text.size() && NameChar(text[i], i == start) && text[i] != ':') ++i;
    if (i == start) return bad(i, "expected a label name");
    std::string name(text.substr(start, i - start));
    if (i + 1 >= text.size() || text[i] != '=' || text[i + 1] != '"') {
      return bad(i, "expected =\" after the label name");
    }
    i += 2;
    std::string value;
    while (true) {
      if (i >= text.size()) return bad(i, "unterminated label value");
      char c = text[i++];
      if (c == '"') break;
      if (c == '\\') {
        if (i >= text.size()) return bad(i, "unterminated escape");
        char e = text[i++];
        if (e == 'n') {
          value += '\n';
        } else if (e == '\\' || e == '"') {
          value += e;
        } else {
          return bad(i - 1, "unknown escape");
        }
      } else {
        value += c;
      }
    }
    out.second.Set(name, value);
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == '}') {
      ++i;
      break;
    }
    return bad(i, "expected ',' or '}'");
  }
  if (i != text.size()) return bad(i, "trailing characters");
  return out;
}

}  // namespace gpufleet
