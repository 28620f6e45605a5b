#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

// A small rocpd database in the documented v3 layout (rocpd_tables.sql),
// tables suffixed with a uuid and no views: no public rocpd sample exists.
std::string RocpdSchema(const std::string& u) {
  return "CREATE TABLE rocpd_metadata" + u +
         "(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);"
         "INSERT INTO rocpd_metadata" +
         u +
         "(tag, value) VALUES ('schema_version', '3');"
         "CREATE TABLE rocpd_string" +
         u +
         "(id INTEGER PRIMARY KEY, guid TEXT, string TEXT);"
         "CREATE TABLE rocpd_info_node" +
         u +
         "(id INTEGER PRIMARY KEY, hostname TEXT);"
         "CREATE TABLE rocpd_info_process" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT);"
         "CREATE TABLE rocpd_info_thread" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT, tid INT);"
         "CREATE TABLE rocpd_info_agent" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT, type TEXT,"
         " type_index INT);"
         "CREATE TABLE rocpd_info_kernel_symbol" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT,"
         " code_object_id INT, kernel_name TEXT, display_name TEXT);"
         "CREATE TABLE rocpd_event" +
         u +
         "(id INTEGER PRIMARY KEY, category_id INT,"
         " correlation_id INT);"
         "CREATE TABLE rocpd_region" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT, tid INT,"
         " start BIGINT, end BIGINT, name_id INT, event_id INT);"
         "CREATE TABLE rocpd_kernel_dispatch" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT,"
         " tid INT, agent_id INT, kernel_id INT, dispatch_id INT, queue_id INT, stream_id INT,"
         " start BIGINT, end BIGINT, event_id INT);"
         "CREATE TABLE rocpd_memory_copy" +
         u +
         "(id INTEGER PRIMARY KEY, nid INT, pid INT, tid INT,"
         " start BIGINT, end BIGINT, name_id INT, dst_agent_id INT, src_agent_id INT, size INT,"
         " queue_id INT, stream_id INT, event_id INT);"
         "CREATE TABLE rocpd_event_operation" +
         u + "(id INTEGER PRIMARY KEY);";
}

TEST(RocpdImporterTest, ImportsSuffixedTablesJoiningInfoIds) {
  TempDir dir;
  std::string path = dir.path() + "/4711_results.db";
  const std::string u = "_0195c2d47e1b7a559d2e1f0a2b3c4d5e";
  ASSERT_TRUE(ExecSql(
      path,
      RocpdSchema(u) + "INSERT INTO rocpd_string" + u +
          " VALUES (1,'g','HIP_RUNTIME_API'),(2,'g','hipLaunchKernel'),"
          "(3,'g','MARKER_CORE_API'),(4,'g','train step'),(5,'g','MEMORY_COPY_HOST_TO_DEVICE'),"
          "(6,'g','hipStreamSynchronize');"
          "INSERT INTO rocpd_info_node" +
          u +
          " VALUES (1,'mi300-node7');"
          "INSERT INTO rocpd_info_process" +
          u +
          " VALUES (1,1,4711);"
          "INSERT INTO rocpd_info_thread" +
          u +
          " VALUES (1,1,1,4711),(2,1,1,4720);"
          "INSERT INTO rocpd_info_agent" +
          u +
          " VALUES (1,1,1,'CPU',0),(2,1,1,'GPU',0),(3,1,1,'GPU',1);"
          "INSERT INTO rocpd_info_kernel_symbol" +
          u +
          " VALUES (1,1,1,1,'_Z4gemmPf','gemm(float*)'),"
          "(2,1,1,1,'ncclDevKernel_Generic',NULL);"
          "INSERT INTO rocpd_event" +
          u +
          " VALUES (1,1,100),(2,1,101),(3,3,0),(4,NULL,100),(5,NULL,101),"
          "(6,NULL,102),(7,1,103);"
          "INSERT INTO rocpd_region" +
          u +
          " VALUES (1,1,1,1,1000,1100,2,1),(2,1,1,1,1200,1300,2,2),"
          "(3,1,1,2,900,5000,4,3),(4,1,1,1,3000,2000,2,NULL),(5,1,1,1,3100,3900,6,7);"
          "INSERT INTO rocpd_kernel_dispatch" +
          u +
          " VALUES (1,1,1,1,3,1,1,5,2,2000,2600,4),"
          "(2,1,1,1,3,2,2,5,2,2700,3700,5);"
          "INSERT INTO rocpd_memory_copy" +
          u + " VALUES (1,1,1,1,800,950,5,3,1,1048576,NULL,2,6);"));
  auto importer = NewRocpdImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  EXPECT_FALSE(NewNsysSqliteImporter()->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  const SourceFile& f = t.files[0];
  EXPECT_EQ(f.format_version, "rocpd schema_version 3 (start/end columns)");
  EXPECT_FALSE(f.epoch_clock);
  EXPECT_EQ(f.skipped, 1u);  // the reversed region
  EXPECT_NE(f.errors[0].find("row 4"), std::string::npos);
  EXPECT_EQ(CountKind(t, EventKind::kKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kRuntime), 2);
  EXPECT_EQ(CountKind(t, EventKind::kSync), 1);
  EXPECT_EQ(CountKind(t, EventKind::kAnnotation), 1);
  EXPECT_EQ(CountKind(t, EventKind::kMemcpy), 1);
  EXPECT_EQ(CountNamed(t, "gemm(float*)"), 1);
  EXPECT_EQ(CountNamed(t, "ncclDevKernel_Generic"), 1);
  for (const Event& e : t.events) {
    EXPECT_EQ(t.process(e).pid, 4711);
    EXPECT_EQ(t.process(e).host, "mi300-node7");
    EXPECT_EQ(t.process(e).vendor, Vendor::kAmd);
    if (e.kind == EventKind::kKernel) {
      EXPECT_EQ(t.track(e).device, 1);  // GPU type_index of agent 3
      EXPECT_EQ(t.track(e).queue, 2);   // stream
      EXPECT_EQ(e.correlation, 100);
    }
    if (e.kind == EventKind::kMemcpy) {
      EXPECT_EQ(e.bytes, 1048576);
      EXPECT_EQ(t.name(e), "Memcpy HtoD");
    }
    if (t.name(e) == "train step") {
      EXPECT_EQ(t.track(e).tid, 4720);
    }
  }
}

TEST(RocpdImporterTest, RejectsOtherDatabases) {
  TempDir dir;
  std::string path = dir.path() + "/x.db";
  ASSERT_TRUE(ExecSql(path, "CREATE TABLE t(a INT);"));
  EXPECT_FALSE(NewRocpdImporter()->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  Status st = NewRocpdImporter()->Import(path, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("x.db: not a rocpd database"), std::string::npos);
}

// Issue 19: the track/timestamp layout of schema_version 3, from the derived
// sample tests/data/trace/rocpd/rocpd_v3_track_layout.sql (its header names
// the rocpd_tables.sql revision it follows).
TEST(RocpdImporterTest, TrackTimestampLayoutSample) {
  std::ifstream in(TestData("rocpd/rocpd_v3_track_layout.sql"));
  ASSERT_TRUE(in.good());
  std::stringstream sql;
  sql << in.rdbuf();
  TempDir dir;
  std::string path = dir.path() + "/6001_results.db";
  ASSERT_TRUE(ExecSql(path, sql.str()));
  auto importer = NewRocpdImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  const SourceFile& f = t.files[0];
  EXPECT_EQ(f.format_version, "rocpd schema_version 3 (rocpd_track + rocpd_timestamp)");
  EXPECT_FALSE(f.partial);
  EXPECT_EQ(f.skipped, 1u);  // dispatch 3 ends before it starts
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_NE(f.errors[0].find("rocpd_kernel_dispatch_0195d1e2a3b47c5d8e9f00112233aabb row 3"),
            std::string::npos)
      << f.errors[0];
  EXPECT_EQ(CountKind(t, EventKind::kKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kMemcpy), 1);
  EXPECT_EQ(CountKind(t, EventKind::kRuntime), 2);
  EXPECT_EQ(CountKind(t, EventKind::kAnnotation), 1);
  for (const Event& e : t.events) {
    EXPECT_EQ(t.process(e).pid, 6001);
    EXPECT_EQ(t.process(e).host, "mi300x-n12");
    if (e.kind == EventKind::kKernel) {
      EXPECT_EQ(e.start_ns, 5100000002000);  // rocpd_timestamp 3
      EXPECT_EQ(e.dur_ns, 7000);
      EXPECT_EQ(e.correlation, 11);
      EXPECT_EQ(t.track(e).device, 0);  // GPU type_index
      EXPECT_EQ(t.track(e).queue, 3);   // the track's stream
    }
    if (e.kind == EventKind::kMemcpy) {
      EXPECT_EQ(e.bytes, 33554432);
      EXPECT_EQ(t.name(e), "Memcpy HtoD");
      EXPECT_EQ(t.track(e).queue, 5);
    }
    if (t.name(e) == "hipLaunchKernel") {
      EXPECT_EQ(e.correlation, 11);
      EXPECT_EQ(t.track(e).tid, 6001);
    }
  }
}

TEST(RocpdImporterTest, TableInNeitherLayoutIsAnErrorNamingIt) {
  TempDir dir;
  std::string path = dir.path() + "/odd.db";
  ASSERT_TRUE(ExecSql(path,
                      "CREATE TABLE rocpd_string_x(id INTEGER PRIMARY KEY, string TEXT);"
                      "CREATE TABLE rocpd_kernel_dispatch_x(id INTEGER PRIMARY KEY, begin_ns INT);"
                      "INSERT INTO rocpd_kernel_dispatch_x VALUES (1, 5);"));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewRocpdImporter()->Import(path, b, nullptr).ok());
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_TRUE(t.files[0].partial);
  ASSERT_EQ(t.files[0].errors.size(), 1u);
  EXPECT_NE(t.files[0].errors[0].find("table rocpd_kernel_dispatch_x has neither start/end"),
            std::string::npos)
      << t.files[0].errors[0];
  EXPECT_EQ(t.files[0].format_version, "rocpd schema_version ?");
  EXPECT_TRUE(t.events.empty());
}

}  // namespace
}  // namespace gpufleet::trace
