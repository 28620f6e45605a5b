#include "canary/result_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "canary/runner.h"

namespace gpufleet::canary {
namespace {

using nlohmann::json;

json TargetJson(const HardwareTarget& t) {
  return {{"model", t.model},
          {"driver", t.driver},
          {"runtime", t.runtime},
          {"libraries", t.libraries},
          {"image", t.image}};
}

// Reads the string fields of a target object; false (with *why) on a
// non-string field.
bool ReadTarget(const json& j, HardwareTarget* t, std::string* why) {
  if (!j.is_object()) {
    *why = "target: not an object";
    return false;
  }
  struct Field {
    const char* name;
    std::string* out;
  };
  for (Field f :
       {Field{"model", &t->model}, Field{"driver", &t->driver}, Field{"runtime", &t->runtime},
        Field{"libraries", &t->libraries}, Field{"image", &t->image}}) {
    auto it = j.find(f.name);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_string()) {
      *why = std::string("target.") + f.name + ": not a string";
      return false;
    }
    *f.out = it->get<std::string>();
  }
  return true;
}

}  // namespace

std::string FormatResultsJson(const HardwareTarget& target,
                              const std::vector<BenchmarkResult>& results,
                              const std::vector<SkippedBenchmark>& skipped) {
  json rs = json::array();
  for (const BenchmarkResult& r : results) {
    json j = {{"benchmark", r.benchmark_id},
              {"unit", r.unit},
              {"values", r.values},
              {"source", r.source}};
    if (!r.note.empty()) j["note"] = r.note;
    if (r.target.Key() != target.Key()) j["target"] = TargetJson(r.target);
    rs.push_back(std::move(j));
  }
  json sk = json::array();
  for (const SkippedBenchmark& s : skipped) {
    sk.push_back({{"benchmark", s.benchmark}, {"reason", s.reason}});
  }
  json doc = {{"format", kCanaryJsonFormat},
              {"version", 1},
              {"target", TargetJson(target)},
              {"results", rs},
              {"skipped", sk}};
  return doc.dump(2) + "\n";
}

bool LooksLikeCanaryJson(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || text[i] != '{') return false;
  return text.substr(0, 4096).find(kCanaryJsonFormat) != std::string_view::npos;
}

StatusOr<std::vector<BenchmarkResult>> ParseCanaryJson(std::string_view text,
                                                       std::string_view origin,
                                                       ParseReport* report) {
  std::string where(origin);
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgumentError(where + ": not valid JSON");
  if (!doc.is_object()) return InvalidArgumentError(where + ": not a JSON object");
  auto fmt = doc.find("format");
  if (fmt == doc.end() || !fmt->is_string() || fmt->get<std::string>() != kCanaryJsonFormat) {
    return InvalidArgumentError(where + ": format: want \"" + std::string(kCanaryJsonFormat) +
                                "\"");
  }
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer() || version->get<int64_t>() != 1) {
    return InvalidArgumentError(where + ": version: want 1");
  }
  HardwareTarget doc_target;
  if (auto t = doc.find("target"); t != doc.end()) {
    std::string why;
    if (!ReadTarget(*t, &doc_target, &why)) return InvalidArgumentError(where + ": " + why);
  }
  auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    return InvalidArgumentError(where + ": results: want an array");
  }
  std::vector<BenchmarkResult> out;
  for (size_t i = 0; i < results->size(); ++i) {
    const json& j = (*results)[i];
    ++report->lines;
    std::string field = "results[" + std::to_string(i) + "]";
    auto skip = [&](const std::string& why) { report->Skip(origin, 0, field + why); };
    if (!j.is_object()) {
      skip(": not an object");
      continue;
    }
    BenchmarkResult r;
    r.target = doc_target;
    auto b = j.find("benchmark");
    auto u = j.find("unit");
    auto v = j.find("values");
    if (b == j.end() || !b->is_string() || b->get<std::string>().empty()) {
      skip(".benchmark: want a non-empty string");
      continue;
    }
    if (u == j.end() || !u->is_string()) {
      skip(".unit: want a string");
      continue;
    }
    r.benchmark_id = b->get<std::string>();
    r.unit = u->get<std::string>();
    if (r.unit != kUnitBytesPerSecond && r.unit != kUnitFlopPerSecond && r.unit != kUnitSeconds &&
        r.unit != kUnitPass) {
      skip(".unit: unknown unit '" + r.unit + "'");
      continue;
    }
    if (v == j.end() || !v->is_array() || v->empty()) {
      skip(".values: want a non-empty array of numbers");
      continue;
    }
    bool ok = true;
    for (size_t k = 0; k < v->size() && ok; ++k) {
      const json& x = (*v)[k];
      if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 0) {
        skip(".values[" + std::to_string(k) + "]: want a finite number >= 0");
        ok = false;
        break;
      }
      r.values.push_back(x.get<double>());
    }
    if (!ok) continue;
    if (auto t = j.find("target"); t != j.end()) {
      std::string why;
      if (!ReadTarget(*t, &r.target, &why)) {
        skip("." + why);
        continue;
      }
    }
    if (auto s = j.find("source"); s != j.end() && s->is_string()) {
      r.source = s->get<std::string>();
    }
    if (r.source.empty()) r.source = where + ":" + field;
    if (auto n = j.find("note"); n != j.end() && n->is_string()) r.note = n->get<std::string>();
    ++report->data_lines;
    MergeResult(std::move(r), &out);
  }
  if (out.empty()) return InvalidArgumentError(where + ": no usable result");
  return out;
}

}  // namespace gpufleet::canary
