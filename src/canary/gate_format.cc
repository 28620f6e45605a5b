#include "canary/gate_format.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace gpufleet::canary {
namespace {

constexpr Verdict kAllVerdicts[] = {Verdict::kPass,    Verdict::kRegression,
                                    Verdict::kFail,    Verdict::kInconclusive,
                                    Verdict::kInvalid, Verdict::kNoBaseline};

std::string ShortUnit(const std::string& unit) {
  if (unit == kUnitBytesPerSecond) return "B/s";
  if (unit == kUnitFlopPerSecond) return "FLOP/s";
  if (unit == kUnitSeconds) return "s";
  return unit;
}

std::string Figure(double v, const std::string& unit) {
  if (unit == kUnitPass) return v == 1 ? "pass" : (v == 0 ? "fail" : "mixed");
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.4g %s", v, ShortUnit(unit).c_str());
  return buf;
}

}  // namespace

std::string FormatGateTable(const GateReport& report) {
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof(line), "%-12s %-36s %-16s %-16s %8s %3s  %s\n", "VERDICT", "BENCHMARK",
                "MEDIAN", "BASELINE", "CHANGE", "N", "REASON");
  out += line;
  std::string last_target = "\x01";
  for (const GateCheck& c : report.checks) {
    if (c.target_key != last_target) {
      out += "# target: " + (c.target_key.empty() ? std::string("(none)") : c.target_key) + "\n";
      last_target = c.target_key;
    }
    std::string base = c.baseline_median ? Figure(*c.baseline_median, c.unit) : "-";
    char change[32] = "-";
    if (c.worse_fraction)
      std::snprintf(change, sizeof(change), "%+.1f%%", -*c.worse_fraction * 100);
    std::snprintf(line, sizeof(line), "%-12s %-36s %-16s %-16s %8s %3zu  %s\n",
                  std::string(VerdictName(c.verdict)).c_str(), c.benchmark_id.c_str(),
                  Figure(c.median, c.unit).c_str(), base.c_str(), change, c.n, c.reason.c_str());
    out += line;
  }
  out += "summary:";
  for (Verdict v : kAllVerdicts) {
    out += " " + std::string(VerdictName(v)) + "=" + std::to_string(report.Count(v));
  }
  out += "\n";
  return out;
}

std::string FormatGateJson(const GateReport& report, bool failed) {
  nlohmann::json checks = nlohmann::json::array();
  for (const GateCheck& c : report.checks) {
    nlohmann::json j = {{"target", c.target_key},
                        {"benchmark", c.benchmark_id},
                        {"unit", c.unit},
                        {"verdict", VerdictName(c.verdict)},
                        {"n", c.n},
                        {"median", c.median},
                        {"relative_spread", c.relative_spread},
                        {"reason", c.reason},
                        {"source", c.source}};
    j["baseline_median"] = c.baseline_median ? nlohmann::json(*c.baseline_median) : nullptr;
    j["baseline_n"] = c.baseline_n;
    j["worse_fraction"] = c.worse_fraction ? nlohmann::json(*c.worse_fraction) : nullptr;
    j["noise_fraction"] = c.noise_fraction ? nlohmann::json(*c.noise_fraction) : nullptr;
    checks.push_back(std::move(j));
  }
  nlohmann::json summary = nlohmann::json::object();
  for (Verdict v : kAllVerdicts) summary[std::string(VerdictName(v))] = report.Count(v);
  nlohmann::json doc = {{"checks", checks}, {"summary", summary}, {"failed", failed}};
  return doc.dump(2) + "\n";
}

}  // namespace gpufleet::canary
