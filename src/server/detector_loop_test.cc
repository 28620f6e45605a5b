#include "server/detector_loop.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <span>
#include <thread>

#include "detect/incident_store.h"

namespace gpufleet {
namespace {

constexpr int64_t kS = kNsPerSecond;
constexpr int64_t kT0 = 1'700'000'000LL * kS;

void Fill(WindowStore& store, const std::string& metric, const std::string& node,
          const std::string& gpu, int from_s, int to_s, double value) {
  Labels l{{"__name__", metric}, {"node", node}, {"gpu", gpu}, {"model", "h100-sxm"},
           {"cloud", "aws"}};
  for (int t = from_s; t < to_s; t += 10) store.Append(l, kT0 + t * kS, value);
}

// Two pods share the GPU: the neighbour that makes its DRAM-heavy phase
// contention rather than a job memory-bound on its own.
void TwoWorkloads(WindowStore& store, const std::string& node, const std::string& gpu, int to_s) {
  for (const char* pod : {"train-a", "infer-b"}) {
    Labels l{{"__name__", "gpu_workload_info"}, {"node", node}, {"gpu", gpu}, {"workload_pod", pod}};
    for (int t = 0; t < to_s; t += 10) store.Append(l, kT0 + t * kS, 1);
  }
}

class DetectorLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("gpufleet_detector_loop_" + std::to_string(getpid()) + ".db"))
                .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + s);
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path_, detect::IncidentMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    incidents_ = std::make_unique<detect::IncidentStore>(db_.get());
    window_ = std::make_unique<WindowStore>(WindowStoreOptions{});
  }
  void TearDown() override {
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + s);
  }

  // Only the memory-contention rule (and `captures`), so the test controls
  // every finding.
  static detect::DetectConfig Config(std::vector<detect::CaptureTriggerConfig> captures = {}) {
    detect::DetectConfig c = detect::DefaultDetectConfig();
    std::vector<detect::RuleConfig> rules;
    for (const detect::RuleConfig& r : c.rules) {
      if (r.name == "memory_contention") rules.push_back(r);
    }
    c.rules = rules;
    c.baseline.enabled = false;
    c.variance.enabled = false;
    c.cross_cloud.enabled = false;
    c.captures = std::move(captures);
    return c;
  }

  // A low-utilization capture trigger that runs `command`.
  static detect::CaptureTriggerConfig LowUtilizationCapture(std::vector<std::string> command) {
    detect::CaptureTriggerConfig trig;
    trig.name = "low_utilization";
    trig.condition = {"gpu_utilization_ratio", detect::Condition::Op::kLess, 0.3, 0};
    trig.for_ns = 60 * kS;
    trig.command = std::move(command);
    return trig;
  }
  // GPU n1/0 for 300 s: DRAM-heavy with a neighbour (memory contention) and
  // low utilization (the capture trigger).
  void ContendedGpuWithLowUtilization() {
    Fill(*window_, "gpu_utilization_ratio", "n1", "0", 0, 300, 0.1);
    Fill(*window_, "gpu_memory_bandwidth_utilization_ratio", "n1", "0", 0, 300, 0.95);
    Fill(*window_, "gpu_sm_occupancy_ratio", "n1", "0", 0, 300, 0.3);
    TwoWorkloads(*window_, "n1", "0", 300);
  }

  // Runs a low-utilization capture whose command is `command` (standing in
  // for a profiler writing {output}) and returns the latest samples of
  // `metrics` the capture left on GPU 0 under `method` (-1 when none).
  std::vector<double> CaptureSamples(std::vector<std::string> command,
                                     const std::vector<const char*>& metrics,
                                     std::string_view method) {
    std::vector<double> out(metrics.size(), -1);
    detect::CaptureTriggerConfig trig = LowUtilizationCapture(std::move(command));
    StatusOr<std::unique_ptr<detect::DetectionEngine>> engine =
        detect::DetectionEngine::Create(Config({trig}), nullptr);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    if (!engine.ok()) return out;
    std::string dir = path_ + "-captures";
    CaptureRunner runner({dir, kS, kS});
    DetectorLoop loop(**engine, *window_, *incidents_, nullptr, &runner, clock_, {});
    ContendedGpuWithLowUtilization();
    clock_.Set(kT0 + 295 * kS);
    EXPECT_TRUE(loop.RunOnce().ok());
    EXPECT_EQ(loop.counters().captures_started, 1u);
    auto latest = [&](const char* metric) {
      double v = -1;
      window_->ForEach(metric, kT0, kT0 + 1000 * kS,
                       [&](const StoredLabels& l, std::span<const WindowPoint> points) {
                         if (l.Get("gpu") == "0" && l.Get("method") == method) {
                           v = points.back().value;
                         }
                       });
      return v;
    };
    for (int i = 0; i < 200 && runner.running() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The samples are appended by the runner's callback, after the process ended.
    for (int i = 0; i < 300 && latest(metrics.back()) < 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (size_t i = 0; i < metrics.size(); ++i) out[i] = latest(metrics[i]);
    std::filesystem::remove_all(dir);
    return out;
  }
  // The (L2 miss, memory stall) samples of a capture whose command copies
  // `src` to {output}.
  std::pair<double, double> CaptureSignalsFrom(const std::string& src, std::string_view method) {
    std::vector<double> got = CaptureSamples(
        {"cp", "-r", src, "{output}"}, {"gpu_l2_miss_ratio", "gpu_memory_stall_ratio"}, method);
    return {got[0], got[1]};
  }

  std::string path_;
  std::unique_ptr<StateDb> db_;
  std::unique_ptr<detect::IncidentStore> incidents_;
  std::unique_ptr<WindowStore> window_;
  FakeClock clock_{kT0};
};

TEST_F(DetectorLoopTest, FindingOpensUpdatesAndResolvesOneIncident) {
  StatusOr<std::unique_ptr<detect::DetectionEngine>> engine =
      detect::DetectionEngine::Create(Config(), nullptr);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  DetectorLoopOptions o;
  o.resolve_after_ns = 120 * kS;
  DetectorLoop loop(**engine, *window_, *incidents_, nullptr, nullptr, clock_, o);
  // GPU 3 contended for 15 minutes, GPU 4 clean.
  Fill(*window_, "gpu_memory_bandwidth_utilization_ratio", "n1", "3", 0, 900, 0.95);
  Fill(*window_, "gpu_sm_occupancy_ratio", "n1", "3", 0, 900, 0.3);
  TwoWorkloads(*window_, "n1", "3", 900);
  Fill(*window_, "gpu_memory_bandwidth_utilization_ratio", "n1", "4", 0, 900, 0.5);
  Fill(*window_, "gpu_sm_occupancy_ratio", "n1", "4", 0, 900, 0.8);
  clock_.Set(kT0 + 890 * kS);
  ASSERT_TRUE(loop.RunOnce().ok());
  clock_.Set(kT0 + 895 * kS);
  ASSERT_TRUE(loop.RunOnce().ok());

  StatusOr<std::vector<detect::IncidentRecord>> open = incidents_->List(detect::IncidentStatus::kOpen);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  const detect::IncidentRecord& r = (*open)[0];
  EXPECT_EQ(r.kind, "memory_contention");
  EXPECT_EQ(r.team, "platform");
  EXPECT_EQ(r.subject.Get("gpu"), "3");
  EXPECT_EQ(r.observations, 2);
  EXPECT_FALSE(r.evidence.empty());
  EXPECT_EQ(loop.counters().incidents_opened, 1u);

  // No more data: the series go stale, the finding disappears, and the
  // incident resolves resolve_after later.
  clock_.Set(kT0 + 1400 * kS);
  ASSERT_TRUE(loop.RunOnce().ok());
  EXPECT_EQ(*incidents_->CountOpen(), 0);
  StatusOr<std::optional<detect::IncidentRecord>> got = incidents_->Get(r.id);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->status, detect::IncidentStatus::kResolved);
  EXPECT_EQ(loop.counters().incidents_resolved, 1u);
}

// A capture trigger belongs to the incident it serves: it runs for the
// memory-contention incident on the same GPU and records its output there.
TEST_F(DetectorLoopTest, CaptureTriggerRunsCommandAndRecordsOutputPath) {
  detect::CaptureTriggerConfig trig =
      LowUtilizationCapture({"true", "--node={node}", "--out={output}"});
  StatusOr<std::unique_ptr<detect::DetectionEngine>> engine =
      detect::DetectionEngine::Create(Config({trig}), nullptr);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  std::string dir = path_ + "-captures";
  CaptureRunner runner({dir, kS, kS});
  DetectorLoop loop(**engine, *window_, *incidents_, nullptr, &runner, clock_, {});
  ContendedGpuWithLowUtilization();
  clock_.Set(kT0 + 295 * kS);
  ASSERT_TRUE(loop.RunOnce().ok());
  StatusOr<std::vector<detect::IncidentRecord>> open = incidents_->List(detect::IncidentStatus::kOpen);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].kind, "memory_contention");
  EXPECT_EQ((*open)[0].capture_path, dir + "/incident-" + std::to_string((*open)[0].id) + "-n1-gpu0");
  EXPECT_EQ(loop.counters().captures_started, 1u);
  for (int i = 0; i < 200 && runner.running() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::filesystem::remove_all(dir);
}

// A rocprofv3 capture's counter collection becomes the device's L2-miss and
// memory-stall samples (the AMD source of both signals).
TEST_F(DetectorLoopTest, RocprofCaptureCountersBecomeTheDevicesSeries) {
  const std::string src = path_ + "-rocprof";
  std::filesystem::create_directories(src + "/node-a");
  {
    std::ofstream f(src + "/node-a/4242_counter_collection.csv");
    f << "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Kernel_Name\",\"Counter_Name\","
         "\"Counter_Value\"\n"
         "1,1,1,\"gemm\",\"TCC_HIT_sum\",300\n1,1,1,\"gemm\",\"TCC_MISS_sum\",700\n"
         "1,1,1,\"gemm\",\"MemUnitStalled\",35\n";
  }
  const auto [miss, stall] = CaptureSignalsFrom(src, "rocprofv3_capture");
  EXPECT_DOUBLE_EQ(miss, 0.7);
  EXPECT_DOUBLE_EQ(stall, 0.35);
  std::filesystem::remove_all(src);
}

// The NVIDIA source of both signals: Nsight Compute's CSV, here the one file
// the capture wrote (`ncu --csv --log-file {output}`).
TEST_F(DetectorLoopTest, NcuCaptureMetricsBecomeTheDevicesSeries) {
  const std::string src = path_ + "-ncu.csv";
  {
    std::ofstream f(src);
    const std::string row =
        "\"0\",\"4711\",\"python3\",\"node-a\",\"gemm\",\"Command line profiler metrics\",";
    f << "==PROF== Connected to process 4711 (/usr/bin/python3)\n"
         "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Section "
         "Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      << row << "\"lts__t_sector_hit_rate.pct\",\"%\",\"38.5\"\n"
      << row << "\"smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct\",\"%\",\"41\"\n";
  }
  const auto [miss, stall] = CaptureSignalsFrom(src, "ncu_capture");
  EXPECT_DOUBLE_EQ(miss, 1 - 0.385);
  EXPECT_DOUBLE_EQ(stall, 0.41);
  std::filesystem::remove(src);
}

// The Intel source of both signals: unitrace's metric report, printed after
// the application's output, which the runner keeps in {output}.log.
TEST_F(DetectorLoopTest, UnitraceReportInTheCapturesOutputBecomesTheDevicesSeries) {
  const std::string src = path_ + "-unitrace.txt";
  std::ofstream(src) << "[app] step 3\n\n=== Device #0 Metrics ===\n\n"
                        "Kernel,GlobalInstanceId,GpuTime[ns],L3_HIT[events],L3_MISS[events],"
                        "XVE_STALL_SBID[%],XVE_STALL_SENDWR[%]\n"
                        "\"gemm<float, 3>\",1,1000,600,400,25.0,5.0\n";
  std::vector<double> got = CaptureSamples(
      {"cat", src}, {"gpu_l2_miss_ratio", "gpu_memory_stall_ratio"}, "unitrace_capture");
  EXPECT_DOUBLE_EQ(got[0], 0.4);
  EXPECT_DOUBLE_EQ(got[1], 0.3);
  std::filesystem::remove(src);
}

// The NVIDIA source of page faults: Nsight Systems' Unified Memory trace in
// the SQLite export `nsys profile --export=sqlite --output={output}` writes
// beside {output}.
TEST_F(DetectorLoopTest, NsysCapturePageFaultsBecomeTheDevicesSeries) {
  const std::string src = path_ + "-nsys.sqlite";
  std::filesystem::remove(src);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(src.c_str(), &db), SQLITE_OK);
  // Tables as the nsys export schema declares them (the columns read), one
  // GPU, 2 s of session, 3,000 faults.
  const char* sql =
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
      "CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER, duration INTEGER, startTime INTEGER, "
      "stopTime INTEGER);"
      "INSERT INTO ANALYSIS_DETAILS VALUES (1, 2000000000, 0, 2000000000);"
      "CREATE TABLE TARGET_INFO_GPU (id INTEGER, uuid TEXT);"
      "INSERT INTO TARGET_INFO_GPU VALUES (0, '5c0e71a4-3b1d-4c52-9e1f-2a6b7d8e9f01');"
      "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INTEGER, end INTEGER, globalPid "
      "INTEGER, deviceId INTEGER, address INTEGER, numberOfPageFaults INTEGER, faultAccessType "
      "INTEGER);"
      "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (10, 20, 1, 0, 4096, 1000, 1);"
      "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (30, 40, 1, 0, 8192, 2000, 1);";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  std::vector<double> got = CaptureSamples({"cp", src, "{output}.sqlite"},
                                           {"gpu_page_faults_per_second"}, "nsys_capture");
  EXPECT_DOUBLE_EQ(got[0], 1500.0);
  std::filesystem::remove(src);
}

TEST_F(DetectorLoopTest, CaptureIsRefusedForHostileLabels) {
  detect::CaptureTriggerConfig trig = LowUtilizationCapture({"true", "{node}"});
  StatusOr<std::unique_ptr<detect::DetectionEngine>> engine =
      detect::DetectionEngine::Create(Config({trig}), nullptr);
  ASSERT_TRUE(engine.ok());
  CaptureRunner runner({path_ + "-captures2", kS, kS});
  DetectorLoop loop(**engine, *window_, *incidents_, nullptr, &runner, clock_, {});
  Fill(*window_, "gpu_utilization_ratio", "$(rm -rf /)", "0", 0, 300, 0.1);
  Fill(*window_, "gpu_memory_bandwidth_utilization_ratio", "$(rm -rf /)", "0", 0, 300, 0.95);
  Fill(*window_, "gpu_sm_occupancy_ratio", "$(rm -rf /)", "0", 0, 300, 0.3);
  clock_.Set(kT0 + 295 * kS);
  ASSERT_TRUE(loop.RunOnce().ok());
  EXPECT_EQ(loop.counters().captures_started, 0u);
  EXPECT_EQ(loop.counters().captures_refused, 1u);
  EXPECT_EQ(runner.started(), 0u);
}

}  // namespace
}  // namespace gpufleet
