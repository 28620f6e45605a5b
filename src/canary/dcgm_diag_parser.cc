#include "canary/dcgm_diag_parser.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/strings.h"

namespace gpufleet::canary {
namespace {

using nlohmann::json;

std::string StringField(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  return "";
}

// "warnings" is a string in older releases and a list of {"warning": ...}
// objects in newer ones.
std::string FirstWarning(const json& result) {
  auto it = result.find("warnings");
  if (it == result.end()) return StringField(result, "info");
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array() && !it->empty()) {
    const json& w = it->front();
    if (w.is_string()) return w.get<std::string>();
    if (w.is_object()) return StringField(w, "warning");
  }
  return StringField(result, "info");
}

std::string SnakeCase(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

void ParseTest(const json& test, const std::string& category, std::string_view origin,
               DcgmDiagOutput* out, ParseReport* report, size_t* index) {
  ++report->lines;
  ++*index;
  std::string where = "test_categories[" + category + "].tests[" + std::to_string(*index - 1) + "]";
  if (!test.is_object() || StringField(test, "name").empty()) {
    report->Skip(origin, 0, where + ": no test name");
    return;
  }
  std::string name = StringField(test, "name");
  auto results = test.find("results");
  if (results == test.end() || !results->is_array()) {
    report->Skip(origin, 0, where + " (" + name + "): no results array");
    return;
  }
  for (const json& r : *results) {
    if (!r.is_object() || StringField(r, "status").empty()) {
      report->Skip(origin, 0, where + " (" + name + "): result without status");
      continue;
    }
    DcgmDiagEntry e;
    e.category = category;
    e.test = name;
    e.gpu = StringField(r, "gpu_ids");
    if (e.gpu.empty()) e.gpu = StringField(r, "entity_id");
    e.status = ToLower(StringField(r, "status"));
    e.info = FirstWarning(r);
    ++report->data_lines;
    out->entries.push_back(std::move(e));
  }
}

}  // namespace

StatusOr<DcgmDiagOutput> ParseDcgmDiag(std::string_view text, std::string_view origin,
                                       ParseReport* report) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // Third-party exception: caught at the edge, turned into a Status.
    const auto* pe = dynamic_cast<const json::parse_error*>(&e);
    return InvalidArgumentError(std::string(origin) +
                                (pe != nullptr ? ": byte " + std::to_string(pe->byte) : "") +
                                ": not JSON: " + e.what());
  }
  if (!doc.is_object()) {
    return InvalidArgumentError(std::string(origin) + ": DCGM diag JSON must be an object");
  }
  const json* diag = nullptr;
  for (const char* key : {"DCGM GPU Diagnostic", "DCGM Diagnostic"}) {
    auto it = doc.find(key);
    if (it != doc.end() && it->is_object()) diag = &*it;
  }
  if (diag == nullptr) {
    return InvalidArgumentError(std::string(origin) +
                                ": no \"DCGM GPU Diagnostic\" object (not dcgmi diag -j output)");
  }
  auto cats = diag->find("test_categories");
  if (cats == diag->end() || !cats->is_array()) {
    return InvalidArgumentError(std::string(origin) +
                                ": field \"test_categories\" missing or not an array");
  }
  DcgmDiagOutput out;
  out.dcgm_version = StringField(*diag, "version");
  out.driver = StringField(doc, "Driver Version Detected");
  for (const json& cat : *cats) {
    if (!cat.is_object() || cat.find("tests") == cat.end() || !cat["tests"].is_array()) {
      ++report->lines;
      report->Skip(origin, 0, "test_categories entry without a tests array");
      continue;
    }
    std::string category = StringField(cat, "category");
    size_t index = 0;
    for (const json& test : cat["tests"]) ParseTest(test, category, origin, &out, report, &index);
  }
  if (out.entries.empty()) {
    return InvalidArgumentError(std::string(origin) + ": DCGM diag JSON holds no test results");
  }
  return out;
}

std::vector<BenchmarkResult> DcgmDiagResults(const DcgmDiagOutput& out, std::string_view origin) {
  HardwareTarget target;
  target.driver = out.driver;
  std::vector<BenchmarkResult> results;
  for (const DcgmDiagEntry& e : out.entries) {
    BenchmarkResult b;
    b.target = target;
    b.benchmark_id = "dcgm." + SnakeCase(e.test);
    b.unit = std::string(kUnitPass);
    b.source = std::string(origin) + ": " + e.test + (e.gpu.empty() ? "" : " gpu " + e.gpu);
    if (e.status == "pass" || e.status == "warn" || e.status == "warning") {
      b.values = {1.0};
    } else if (e.status == "fail") {
      b.values = {0.0};
      b.note = b.source + ": " + e.info;
    }
    // Skip / not run: the test produced no evidence either way.
    if (!b.values.empty()) MergeResult(std::move(b), &results);
  }
  return results;
}

}  // namespace gpufleet::canary
