// Test helpers for the canary tests: paths of test data and a stable text
// form of parsed results for golden files.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "canary/result.h"
#include "core/file_util.h"
#include "core/strings.h"

namespace gpufleet::canary {

inline std::string CanaryData(const std::string& name) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/canary/" + name;
}

inline std::string ReadCanaryData(const std::string& name) {
  StatusOr<std::string> s = ReadFileToString(CanaryData(name));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : std::string();
}

// "target | benchmark | unit | v1 v2 ... | source", one line per result.
inline std::string ResultsToText(const std::vector<BenchmarkResult>& results) {
  std::string out;
  for (const BenchmarkResult& r : results) {
    out += r.target.Key() + " | " + r.benchmark_id + " | " + r.unit + " |";
    for (double v : r.values) out += " " + FormatDouble(v);
    out += " | " + r.source + "\n";
  }
  return out;
}

// Compares with tests/data/canary/golden/<name>; GPUFLEET_UPDATE_GOLDEN=1
// rewrites it.
inline void ExpectGolden(const std::string& name, const std::string& actual) {
  std::string path = CanaryData("golden/" + name);
  if (std::getenv("GPUFLEET_UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(WriteStringToFile(path, actual).ok());
    return;
  }
  StatusOr<std::string> expected = ReadFileToString(path);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString()
                             << " (run with GPUFLEET_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(*expected, actual) << "golden " << path;
}

}  // namespace gpufleet::canary
