#include "expo/prom_query_result.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace gpufleet {
namespace {

using json = nlohmann::json;

Status Bad(const std::string& where, const std::string& what) {
  return InvalidArgumentError("query result: " + where + ": " + what);
}

// "1.5", "NaN", "+Inf", "-Inf" -> the double; false when malformed.
bool ParseValue(const std::string& s, double* out) {
  if (s == "NaN") {
    *out = std::nan("");
    return true;
  }
  if (s == "+Inf" || s == "Inf") {
    *out = HUGE_VAL;
    return true;
  }
  if (s == "-Inf") {
    *out = -HUGE_VAL;
    return true;
  }
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// The string member `key` of `obj`, or `fallback` when absent or not a string.
std::string StringOr(const json& obj, const char* key, const char* fallback) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

Status ParsePoint(const json& p, const std::string& where, RemoteWriteSample* out) {
  if (!p.is_array() || p.size() != 2) return Bad(where, "must be [time, \"value\"]");
  if (!p[0].is_number()) return Bad(where + "[0]", "time must be a number");
  double t = p[0].get<double>();
  // Beyond +-1e14 s the millisecond count leaves int64; no engine sends that.
  if (!std::isfinite(t) || std::fabs(t) > 1e14) return Bad(where + "[0]", "time out of range");
  if (!p[1].is_string()) return Bad(where + "[1]", "value must be a string");
  double v = 0;
  if (!ParseValue(p[1].get<std::string>(), &v)) return Bad(where + "[1]", "not a number");
  out->timestamp_ms = static_cast<int64_t>(std::llround(t * 1000.0));
  out->value = v;
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<RemoteWriteSeries>> ParsePromQueryResult(std::string_view text,
                                                              bool matrix_only) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return InvalidArgumentError("query result: malformed JSON at byte " + std::to_string(e.byte) +
                                ": " + e.what());
  } catch (const json::exception& e) {  // e.g. out_of_range: a number beyond a double
    return InvalidArgumentError(std::string("query result: malformed JSON: ") + e.what());
  }
  if (!doc.is_object()) return Bad("(top)", "must be an object");
  auto status = doc.find("status");
  if (status == doc.end() || !status->is_string()) return Bad("status", "missing");
  if (*status != "success") {
    std::string type = StringOr(doc, "errorType", "?");
    std::string msg = StringOr(doc, "error", "no message");
    return UnavailableError("query failed (" + type + "): " + msg);
  }
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return Bad("data", "missing");
  std::string type = StringOr(*data, "resultType", "");
  if (type != "matrix" && (type != "vector" || matrix_only)) {
    return Bad("data.resultType",
               "'" + type + "' is not matrix" + (matrix_only ? "" : " or vector"));
  }
  auto result = data->find("result");
  if (result == data->end() || !result->is_array()) return Bad("data.result", "missing");
  std::vector<RemoteWriteSeries> out;
  out.reserve(result->size());
  for (size_t i = 0; i < result->size(); ++i) {
    const json& r = (*result)[i];
    std::string where = "data.result[" + std::to_string(i) + "]";
    if (!r.is_object()) return Bad(where, "must be an object");
    RemoteWriteSeries s;
    auto metric = r.find("metric");
    if (metric == r.end() || !metric->is_object()) return Bad(where + ".metric", "missing");
    for (const auto& [name, value] : metric->items()) {
      if (!value.is_string()) return Bad(where + ".metric." + name, "must be a string");
      s.labels.Set(name, value.get<std::string>());
    }
    if (type == "vector") {
      auto v = r.find("value");
      if (v == r.end()) return Bad(where + ".value", "missing");
      RemoteWriteSample p;
      RETURN_IF_ERROR(ParsePoint(*v, where + ".value", &p));
      s.samples.push_back(p);
    } else {
      auto vs = r.find("values");
      if (vs == r.end() || !vs->is_array()) return Bad(where + ".values", "missing");
      s.samples.reserve(vs->size());
      for (size_t k = 0; k < vs->size(); ++k) {
        RemoteWriteSample p;
        RETURN_IF_ERROR(ParsePoint((*vs)[k], where + ".values[" + std::to_string(k) + "]", &p));
        if (!s.samples.empty() && p.timestamp_ms <= s.samples.back().timestamp_ms) {
          return Bad(where + ".values[" + std::to_string(k) + "]", "time not increasing");
        }
        s.samples.push_back(p);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpufleet
