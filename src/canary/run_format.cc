#include "canary/run_format.h"

#include <algorithm>
#include <cstdio>

#include "canary/stats.h"

namespace gpufleet::canary {

std::string HumanFigure(double value, std::string_view unit) {
  char buf[64];
  if (unit == kUnitSeconds) {
    if (value < 1e-3) {
      std::snprintf(buf, sizeof(buf), "%.3g us", value * 1e6);
    } else if (value < 1) {
      std::snprintf(buf, sizeof(buf), "%.3g ms", value * 1e3);
    } else {
      std::snprintf(buf, sizeof(buf), "%.3g s", value);
    }
    return buf;
  }
  const char* base = unit == kUnitFlopPerSecond    ? "FLOP/s"
                     : unit == kUnitBytesPerSecond ? "B/s"
                                                   : "";
  struct Prefix {
    double scale;
    const char* name;
  };
  for (Prefix p : {Prefix{1e15, "P"}, Prefix{1e12, "T"}, Prefix{1e9, "G"}, Prefix{1e6, "M"},
                   Prefix{1e3, "k"}}) {
    if (value >= p.scale) {
      std::snprintf(buf, sizeof(buf), "%.3g %s%s", value / p.scale, p.name, base);
      return buf;
    }
  }
  std::snprintf(buf, sizeof(buf), "%.3g %s", value, base);
  return buf;
}

std::string FormatRunTable(const RunReport& report) {
  std::string out = "target: " + report.target.Key() + "\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%-34s %-14s %-14s %-14s %3s\n", "BENCHMARK", "MEDIAN", "MIN",
                "MAX", "N");
  out += line;
  for (const BenchmarkResult& r : report.results) {
    if (r.values.empty()) continue;
    auto [lo, hi] = std::minmax_element(r.values.begin(), r.values.end());
    // --device all: the same id once per GPU, so the GPU leads the name.
    std::string name =
        report.per_device ? ResultDevice(r) + " " + r.benchmark_id : r.benchmark_id;
    std::snprintf(line, sizeof(line), "%-34s %-14s %-14s %-14s %3zu\n", name.c_str(),
                  HumanFigure(Median(r.values), r.unit).c_str(), HumanFigure(*lo, r.unit).c_str(),
                  HumanFigure(*hi, r.unit).c_str(), r.values.size());
    out += line;
  }
  for (const SkippedBenchmark& s : report.skipped) {
    out += "skipped " + s.benchmark + ": " + s.reason + "\n";
  }
  return out;
}

}  // namespace gpufleet::canary
