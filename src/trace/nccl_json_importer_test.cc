#include <string>

#include "gtest/gtest.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

TEST(NcclJsonImporterTest, ImportsInspectorRecordsFromNcclDocs) {
  std::string path = TestData("nccl_json/inspector_readme_examples.jsonl");
  auto importer = NewNcclJsonImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  EXPECT_EQ(t.files[0].skipped, 0u);
  ASSERT_EQ(t.collectives.size(), 2u);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 2);
  bool saw_rs = false;
  for (const Event& e : t.events) {
    const Collective& c = t.collectives[e.collective];
    if (t.strings.Get(c.op) == "ReduceScatter") {
      saw_rs = true;
      // Kernel span from event_trace_ts, us -> ns.
      EXPECT_EQ(e.start_ns, 1752867229235181LL * 1000);
      EXPECT_EQ(e.dur_ns, (1752867229275811LL - 1752867229235181LL) * 1000);
      EXPECT_EQ(c.seq, 1231);
      EXPECT_EQ(c.rank, 4);
      EXPECT_EQ(c.nranks, 8);
      EXPECT_EQ(c.bytes, 2147483648LL);
      EXPECT_EQ(t.strings.Get(c.comm), "0xe62dedaa97644a");
    } else {
      // No event trace: ends at the dump time, lasts the execution time.
      EXPECT_EQ(e.end_ns(), 1748030377748202LL * 1000);
      EXPECT_EQ(e.dur_ns, 61974LL * 1000);
    }
  }
  EXPECT_TRUE(saw_rs);
}

TEST(NcclJsonImporterTest, ImportsRasStatusAndMonitorEvent) {
  Timeline t;
  TimelineBuilder b(t);
  std::string status = TestData("nccl_json/ras_status_example.json");
  std::string event = TestData("nccl_json/ras_monitor_event_example.json");
  auto importer = NewNcclJsonImporter();
  ASSERT_TRUE(importer->Sniff(status, ReadHead(status)));
  ASSERT_TRUE(importer->Sniff(event, ReadHead(event)));
  ASSERT_TRUE(importer->Import(status, b, nullptr).ok());
  ASSERT_TRUE(importer->Import(event, b, nullptr).ok());
  ASSERT_EQ(t.files.size(), 2u);
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 1524344);
  EXPECT_EQ(t.processes[0].world_size, 2);
  ASSERT_EQ(t.files[0].errors.size(), 1u);
  EXPECT_NE(t.files[0].errors[0].find("rank 1 missing"), std::string::npos);
  ASSERT_EQ(t.files[1].errors.size(), 1u);
  EXPECT_NE(t.files[1].errors[0].find("PEER_DEAD"), std::string::npos);
}

TEST(NcclJsonImporterTest, TruncatedJsonlKeepsWhatWasReadAndIsPartial) {
  TempDir dir;
  std::string path = dir.path() + "/host-pid1.log";
  WriteFile(path,
            "{\"header\": {\"id\": \"0x1\", \"rank\": 0, \"n_ranks\": 2}, \"metadata\": "
            "{\"dump_timestamp_us\": 2000, \"hostname\": \"h\", \"pid\": 1}, \"coll_perf\": "
            "{\"coll\": \"AllGather\", \"coll_sn\": 1, \"coll_exec_time_us\": 10}}\n"
            "{\"header\": {\"id\": \"0x1\"}, \"coll_perf\": {\"coll\" 3}}\n"
            "{\"header\": {\"id\": \"0x1\", \"rank\": 0, \"n_ranks\": 2}, \"coll_perf\": {\"coll");
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewNcclJsonImporter()->Import(path, b, nullptr).ok());
  EXPECT_TRUE(t.files[0].partial);
  EXPECT_EQ(t.files[0].skipped, 2u);  // the invalid object and the cut one
  ASSERT_FALSE(t.files[0].errors.empty());
  EXPECT_NE(t.files[0].errors[0].find("host-pid1.log:2"), std::string::npos);
  EXPECT_EQ(t.collectives.size(), 1u);
}

}  // namespace
}  // namespace gpufleet::trace
