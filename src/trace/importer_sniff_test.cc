// The registry routes each sample to its importer (sniffing order matters:
// several formats are JSON objects or SQLite files), and LoadTraces combines
// NVIDIA and AMD communication logs on one timeline.
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "trace/testing/importer_test_util.h"
#include "trace/trace_loader.h"

namespace gpufleet::trace {
namespace {

TEST(ImporterSniffTest, EachSampleGoesToItsImporter) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"saxpy-mpi-cuda_nsys_perlmutter0.sqlite", "nsys_sqlite"},
      {"rocprof/kernel_trace.csv", "rocprofv3_csv"},
      {"rocprof/hip_runtime_trace.csv", "rocprofv3_csv"},
      {"nccl/hang_nvidia_node1.log", "nccl_log"},
      {"nccl/hang_amd_node3.log", "nccl_log"},
      {"nccl_json/ras_status_example.json", "nccl_json"},
      {"nccl_json/ras_monitor_event_example.json", "nccl_json"},
      {"nccl_json/inspector_readme_examples.jsonl", "nccl_json"},
      {"fr/nccl_trace_rank_0.json", "flight_recorder"},
  };
  for (const auto& [file, format] : cases) {
    auto importer = DetectImporter(TestData(file));
    ASSERT_TRUE(importer.ok()) << file << ": " << importer.status().ToString();
    EXPECT_EQ((*importer)->format(), format) << file;
  }
}

TEST(ImporterSniffTest, LoadsNvidiaAndAmdLogsOnOneTimeline) {
  LoadOptions options;
  auto t = LoadTraces({TestData("nccl/hang_nvidia_node1.log"), TestData("nccl/hang_amd_node3.log")},
                      options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->files.size(), 2u);
  EXPECT_EQ(t->processes.size(), 4u);
  EXPECT_EQ(t->collectives.size(), 15u);
  int amd = 0;
  for (const Process& p : t->processes) amd += p.vendor == Vendor::kAmd ? 1 : 0;
  EXPECT_EQ(amd, 2);
}

}  // namespace
}  // namespace gpufleet::trace
