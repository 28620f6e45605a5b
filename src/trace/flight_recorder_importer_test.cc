#include <string>

#include "gtest/gtest.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

TEST(FlightRecorderImporterTest, ImportsEntriesAsCollectives) {
  std::string path = TestData("fr/nccl_trace_rank_0.json");
  auto importer = NewFlightRecorderImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].rank, 0);  // from the file name
  EXPECT_EQ(t.files[0].format_version, "flight recorder dump version 2.4");
  ASSERT_EQ(t.collectives.size(), 5u);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 4);  // completed ones have a span
  EXPECT_EQ(CountKind(t, EventKind::kInstant), 1);     // seq 5 never completed
  for (const Collective& c : t.collectives) {
    EXPECT_EQ(t.strings.Get(c.comm), "pg:0");
    EXPECT_EQ(c.nranks, 4);
    EXPECT_EQ(c.bytes, 1024 * 1024 * 4);
  }
  EXPECT_EQ(t.strings.Get(t.collectives[2].op), "nccl:all_gather");
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kCommKernel) {
      EXPECT_EQ(e.dur_ns, 85000);
    }
  }
}

TEST(FlightRecorderImporterTest, RejectsPickleWithHintAndTruncatedJson) {
  TempDir dir;
  std::string pickle = dir.path() + "/nccl_trace_rank_1";
  WriteFile(pickle, std::string("\x80\x04\x95", 3));
  auto importer = NewFlightRecorderImporter();
  EXPECT_TRUE(importer->Sniff(pickle, ReadHead(pickle)));
  Timeline t;
  TimelineBuilder b(t);
  Status st = importer->Import(pickle, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("convert"), std::string::npos);

  std::string cut = dir.path() + "/nccl_trace_rank_2.json";
  WriteFile(cut, "{\"entries\": [{\"collective_seq_id\": 1, \"profiling_name\": \"nccl:all");
  st = importer->Import(cut, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(cut), std::string::npos);
  EXPECT_TRUE(t.files.empty());
}

TEST(FlightRecorderImporterTest, SkipsBadEntriesAndUsesRankField) {
  TempDir dir;
  std::string path = dir.path() + "/dump.json";
  WriteFile(path,
            "{\"rank\": 6, \"entries\": [{\"collective_seq_id\": 1, \"profiling_name\": "
            "\"nccl:broadcast\", \"time_created_ns\": 100, \"pg_id\": 0}, {\"collective_seq_id\": "
            "\"x\"}, 7], \"version\": \"2.4\"}");
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewFlightRecorderImporter()->Import(path, b, nullptr).ok());
  EXPECT_EQ(t.processes[0].rank, 6);
  EXPECT_EQ(t.files[0].skipped, 2u);
  ASSERT_FALSE(t.files[0].errors.empty());
  EXPECT_NE(t.files[0].errors[0].find("entries[1]"), std::string::npos);
  EXPECT_EQ(t.collectives.size(), 1u);
}

// Issue 19: a 2.2 dump (pickle content as JSON: no pg_status, undiscovered
// times null), derived from torch's TraceUtils.h key list at version 2.2.
TEST(FlightRecorderImporterTest, Version22DumpWithoutPgStatus) {
  std::string path = TestData("fr/v2.2/nccl_trace_rank_0.json");
  ASSERT_TRUE(NewFlightRecorderImporter()->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewFlightRecorderImporter()->Import(path, b, nullptr).ok());
  b.Finish();
  EXPECT_EQ(t.files[0].format_version, "flight recorder dump version 2.2");
  EXPECT_EQ(t.files[0].skipped, 0u);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 2);
  EXPECT_EQ(CountKind(t, EventKind::kInstant), 1);  // seq 3, scheduled
  for (const Collective& c : t.collectives) EXPECT_EQ(c.bytes, 4096 * 2);
}

// Version 2.7 adds a top-level nccl_version to the 2.4 layout (derived sample:
// the 2.4 dump with that key, see tests/data/trace/README.importers.md).
TEST(FlightRecorderImporterTest, Version27NamesItsNcclVersion) {
  std::string path = TestData("fr/v2.7/nccl_trace_rank_0.json");
  ASSERT_TRUE(NewFlightRecorderImporter()->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewFlightRecorderImporter()->Import(path, b, nullptr).ok());
  b.Finish();
  EXPECT_EQ(t.files[0].format_version, "flight recorder dump version 2.7, nccl_version 2.21.5");
  EXPECT_EQ(t.files[0].skipped, 0u);
  EXPECT_EQ(t.processes[0].rank, 0);
  EXPECT_EQ(t.collectives.size(), 5u);
}

// The JSON dump of version 2.10 (FlightRecorder::dump_json): pg_status values
// are strings, pg_config is keyed by group name while entries carry pg_id,
// undiscovered times are 0, comm_lib_version and thread_id/thread_name appear.
TEST(FlightRecorderImporterTest, Version210JsonDumpForms) {
  std::string path = TestData("fr/v2.10_json/nccl_trace_rank_0.json");
  ASSERT_TRUE(NewFlightRecorderImporter()->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewFlightRecorderImporter()->Import(path, b, nullptr).ok());
  b.Finish();
  EXPECT_EQ(t.files[0].format_version,
            "flight recorder dump version 2.10, comm_lib_version 2.27.5");
  EXPECT_EQ(t.processes[0].rank, 0);
  ASSERT_EQ(t.collectives.size(), 8u);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 6);
  // seq 7 started, seq 8 scheduled with both discovery times 0: neither is a
  // span (a 0 time is "not seen", not the epoch).
  EXPECT_EQ(CountKind(t, EventKind::kInstant), 2);
  for (const Event& e : t.events) EXPECT_GT(e.start_ns, 0);
  int tp = 0;
  for (const Collective& c : t.collectives) {
    if (t.strings.Get(c.comm) == "pg:tp_group") {
      ++tp;
      EXPECT_EQ(c.nranks, 2);  // ranks from pg_config["tp_group"], matched by name
    }
  }
  EXPECT_EQ(tp, 4);
}

}  // namespace
}  // namespace gpufleet::trace
