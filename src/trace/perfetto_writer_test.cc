#include "trace/perfetto_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_util.h"
#include "trace/kineto_test_util.h"
#include "trace/trace_loader.h"

namespace gpufleet::trace {
namespace {

using testing::SourcePath;
using testing::TempPath;
using testing::WriteTemp;

// Two ranks whose Kineto GPU pid is 0 in both files; rank 1 is 5 µs behind.
std::string Rank(int rank, int64_t shift_ns) {
  auto us = [&](int64_t ns) {
    ns += shift_ns;
    return std::to_string(ns / 1000) + "." + std::to_string(1000 + ns % 1000).substr(1);
  };
  std::string d = "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) +
                  "}, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100\"}], "
                  "\"traceEvents\": [";
  for (int k = 0; k < 4; ++k) {
    int64_t t = 1'000'000 + k * 100'000;
    if (k > 0) d += ",";
    d += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": " +
         std::to_string(100 + rank) + ", \"tid\": 1, \"ts\": " + us(t) +
         ", \"dur\": 2.0, \"args\": {\"correlation\": " + std::to_string(k) + "}},";
    d += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce\", \"pid\": 0, "
         "\"tid\": 7, \"ts\": " + us(t + 10'000) + ", \"dur\": 50.125, \"args\": {\"device\": 0, "
         "\"stream\": 7, \"correlation\": " + std::to_string(k) +
         ", \"Process Group Name\": \"0\", \"Seq\": " + std::to_string(k) + "}}";
  }
  d += "], \"baseTimeNanoseconds\": 1700000000000000000}";
  return d;
}

TEST(PerfettoWriterTest, MergedTraceHasDistinctPidsOffsetsAndFlows) {
  std::string a = WriteTemp("pa.json", Rank(0, 0));
  std::string b = WriteTemp("pb.json", Rank(1, -5'000));
  auto loaded = LoadTraces({a, b}, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->files[1].clock_offset_ns, 5'000);

  std::string path = TempPath("merged.json");
  ASSERT_TRUE(WritePerfettoJson(*loaded, path).ok());
  auto text = ReadFileToString(path);
  ASSERT_TRUE(text.ok());
  nlohmann::json doc = nlohmann::json::parse(*text);
  ASSERT_TRUE(doc.contains("traceEvents"));
  const auto& files = doc["otherData"]["files"];
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[1]["clock_offset_ns"].get<int64_t>(), 5'000);
  EXPECT_NE(files[1]["alignment"].get<std::string>().find("collective ends"), std::string::npos);

  std::map<int64_t, std::string> process_names;
  std::set<int64_t> kernel_pids;
  std::vector<double> kernel_ts;
  int flow_starts = 0, flow_ends = 0;
  for (const auto& e : doc["traceEvents"]) {
    std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") {
      process_names[e["pid"].get<int64_t>()] = e["args"]["name"];
    } else if (ph == "X" && e["cat"] == "comm_kernel") {
      kernel_pids.insert(e["pid"].get<int64_t>());
      kernel_ts.push_back(e["ts"].get<double>());
    } else if (ph == "s") {
      ++flow_starts;
    } else if (ph == "f") {
      ++flow_ends;
      EXPECT_EQ(e["bp"], "e");
    }
  }
  // Both ranks' GPU 0 were pid 0 in Kineto; here they are two processes.
  ASSERT_EQ(kernel_pids.size(), 2u);
  for (int64_t pid : kernel_pids) {
    ASSERT_TRUE(process_names.count(pid));
    EXPECT_NE(process_names[pid].find("GPU 0 NVIDIA H100"), std::string::npos);
  }
  EXPECT_EQ(flow_starts, 8);
  EXPECT_EQ(flow_ends, 8);
  // The shifted rank's kernels land on the same µs as rank 0's (ns decimals kept).
  ASSERT_EQ(kernel_ts.size(), 8u);
  std::sort(kernel_ts.begin(), kernel_ts.end());
  EXPECT_DOUBLE_EQ(kernel_ts[0], kernel_ts[1]);
  EXPECT_NE(text->find("\"dur\":50.125"), std::string::npos);
}

TEST(PerfettoWriterTest, RealSampleRoundTripsThroughJson) {
  auto loaded = LoadTraces(
      {SourcePath("tests/data/trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")}, {});
  ASSERT_TRUE(loaded.ok());
  std::string json = PerfettoJson(*loaded);
  nlohmann::json doc = nlohmann::json::parse(json);
  size_t x = 0;
  for (const auto& e : doc["traceEvents"]) x += e["ph"] == "X" ? 1 : 0;
  size_t expected = 0;
  for (const Event& e : loaded->events) expected += e.kind == EventKind::kInstant ? 0 : 1;
  EXPECT_EQ(x, expected);
}

}  // namespace
}  // namespace gpufleet::trace
