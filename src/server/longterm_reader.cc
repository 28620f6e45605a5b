#include "server/longterm_reader.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/strings.h"

namespace gpufleet {
namespace {

using nlohmann::json;

std::string UrlEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

// The string at `key`, "" when absent or not a string (json::value throws
// on a wrong type, and the answer comes from another server).
std::string StringAt(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string Seconds(int64_t ns) { return FormatDouble(static_cast<double>(ns) / 1e9); }

}  // namespace

std::string LongtermPromql(const SeriesQuery& q) {
  std::string sel = q.metric + q.match.ToString();
  // Whole milliseconds: PromQL durations take integers with a unit.
  std::string range = std::to_string(std::max<int64_t>(1, q.step_ns / kNsPerMs)) + "ms";
  std::string expr = "last_over_time(" + sel + "[" + range + "])";
  if (!q.aggregate.empty()) expr = "avg by (" + q.aggregate + ") (" + expr + ")";
  return expr;
}

StatusOr<std::vector<SeriesData>> ParseQueryRangeAnswer(std::string_view body,
                                                        const SeriesQuery& q) {
  json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return InvalidArgumentError("answer: not JSON");
  if (StringAt(doc, "status") != "success") {
    std::string err = doc.contains("error") && doc["error"].is_string()
                          ? doc["error"].get<std::string>()
                          : std::string("no error message");
    return InvalidArgumentError("answer: status is not success: " + err.substr(0, 200));
  }
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return InvalidArgumentError("data: want an object");
  if (StringAt(*data, "resultType") != "matrix") {
    return InvalidArgumentError("data.resultType: want matrix");
  }
  auto result = data->find("result");
  if (result == data->end() || !result->is_array()) {
    return InvalidArgumentError("data.result: want an array");
  }
  const int64_t n = q.points();
  std::vector<SeriesData> out;
  for (size_t i = 0; i < result->size(); ++i) {
    const json& s = (*result)[i];
    std::string where = "data.result[" + std::to_string(i) + "]";
    if (!s.is_object()) return InvalidArgumentError(where + ": want an object");
    SeriesData d;
    d.v.assign(static_cast<size_t>(n), std::nullopt);
    auto metric = s.find("metric");
    if (metric != s.end() && metric->is_object()) {
      for (const auto& [k, v] : metric->items()) {
        if (k != "__name__" && v.is_string()) d.labels.Set(k, v.get<std::string>());
      }
    }
    auto values = s.find("values");
    if (values == s.end() || !values->is_array()) {
      return InvalidArgumentError(where + ".values: want an array");
    }
    for (size_t k = 0; k < values->size(); ++k) {
      const json& p = (*values)[k];
      std::string pw = where + ".values[" + std::to_string(k) + "]";
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string()) {
        return InvalidArgumentError(pw + ": want [unix seconds, \"value\"]");
      }
      double t = p[0].get<double>();
      std::optional<double> v = ParseDouble(p[1].get<std::string>());
      if (!std::isfinite(t) || !v.has_value()) return InvalidArgumentError(pw + ": bad number");
      double offset_ns = t * 1e9 - static_cast<double>(q.from_ns);
      if (offset_ns < -1e6) continue;  // before the grid (1 ms of rounding allowed)
      // Compared as a double first: a far-off time must not overflow the cast.
      double slot = std::floor(std::max(0.0, offset_ns + 1e6) / static_cast<double>(q.step_ns));
      if (slot >= static_cast<double>(n)) continue;
      int64_t idx = static_cast<int64_t>(slot);
      if (std::isfinite(*v)) d.v[static_cast<size_t>(idx)] = *v;
    }
    out.push_back(std::move(d));
  }
  return out;
}

StatusOr<std::vector<SeriesData>> LongtermReader::Query(const SeriesQuery& q) {
  std::string url = options_.query_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/api/v1/query_range?query=" + UrlEncode(LongtermPromql(q)) +
         "&nocache=1&start=" + Seconds(q.from_ns) + "&end=" + Seconds(q.to_ns) +
         "&step=" + Seconds(q.step_ns);
  HttpRequest req;
  req.url = url;
  req.timeout_ns = options_.timeout_ns;
  if (!options_.token.empty()) req.headers.push_back({"Authorization", "Bearer " + options_.token});
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<HttpResponse> res = client_->Send(req);
  if (!res.ok()) return UnavailableError("long-term store: " + res.status().message());
  if (!res->ok()) {
    return UnavailableError("long-term store " + options_.query_url + ": HTTP " +
                            std::to_string(res->status) + ": " + res->body.substr(0, 200));
  }
  StatusOr<std::vector<SeriesData>> parsed = ParseQueryRangeAnswer(res->body, q);
  if (!parsed.ok()) {
    return UnavailableError("long-term store " + options_.query_url + ": " +
                            parsed.status().message());
  }
  return parsed;
}

}  // namespace gpufleet
