#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "trace/importer.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

const std::string kSample =
    std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/trace/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";

TEST(NsysSqliteImporterTest, ImportsRealPerlmutterExport) {
  auto importer = NewNsysSqliteImporter();
  ASSERT_TRUE(importer->Sniff(kSample, ReadHead(kSample)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(kSample, b, nullptr).ok());
  b.Finish();
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_FALSE(t.files[0].partial);
  EXPECT_EQ(t.files[0].skipped, 0u);
  EXPECT_NE(t.files[0].alignment.find("utcEpochNs"), std::string::npos);
  EXPECT_NE(t.files[0].alignment.find("2.9.1"), std::string::npos);
  EXPECT_EQ(t.files[0].format_version, "nsys 2022.2.1.31, export schema 2.9.1 (EXPORT_META_DATA)");

  EXPECT_EQ(CountKind(t, EventKind::kKernel), 5);
  EXPECT_EQ(CountKind(t, EventKind::kMemcpy), 15);
  // 95 rows, each call listed twice (with and without _vNNNN) except one.
  EXPECT_EQ(CountKind(t, EventKind::kRuntime), 57);
  EXPECT_EQ(CountNamed(t, "cudaLaunchKernel"), 5);
  EXPECT_EQ(CountNamed(t, "cudaLaunchKernel_v7000"), 0);
  EXPECT_EQ(CountNamed(t, "saxpy(double *, double *, double *, double, int)"), 5);
  EXPECT_GT(CountKind(t, EventKind::kAnnotation), 0);

  // The first kernel: session start 1687813257637297504 + 924922186 ns.
  const Event* first = nullptr;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kKernel) {
      first = &e;
      break;
    }
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->start_ns, 1687813257637297504LL + 924922186LL);
  EXPECT_EQ(first->dur_ns, 942626994LL - 924922186LL);
  EXPECT_EQ(first->correlation, 140);
  const Process& p = t.process(*first);
  EXPECT_EQ(p.pid, 1230493);
  EXPECT_EQ(p.host, "nid001608");
  EXPECT_EQ(p.rank, 0);  // from the "MPI Rank 0" NVTX mark
  EXPECT_EQ(p.vendor, Vendor::kNvidia);
  EXPECT_EQ(p.device_name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(t.track(*first).queue, 7);

  // The launch and its kernel share correlationId 140 in the same process.
  bool linked = false;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kRuntime && e.correlation == 140) {
      linked = t.name(e) == "cudaLaunchKernel" && t.track(e).process == t.track(*first).process;
    }
  }
  EXPECT_TRUE(linked);
  // Memcpy sizes come through.
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kMemcpy) {
      EXPECT_GT(e.bytes, 0);
    }
  }
}

TEST(NsysSqliteImporterTest, RejectsSqliteThatIsNotAnExportNamingTheTable) {
  TempDir dir;
  std::string path = dir.path() + "/other.sqlite";
  ASSERT_TRUE(ExecSql(path, "CREATE TABLE users(id INTEGER, name TEXT);"));
  auto importer = NewNsysSqliteImporter();
  EXPECT_FALSE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  Status st = importer->Import(path, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(path), std::string::npos);
  EXPECT_NE(st.message().find("META_DATA_EXPORT"), std::string::npos);
  EXPECT_TRUE(t.files.empty());
}

TEST(NsysSqliteImporterTest, RejectsNonDatabaseFile) {
  TempDir dir;
  std::string path = dir.path() + "/garbage.sqlite";
  WriteFile(path, std::string("SQLite format 3\0", 16) + std::string(200, 'x'));
  Timeline t;
  TimelineBuilder b(t);
  Status st = NewNsysSqliteImporter()->Import(path, b, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(path), std::string::npos);
}

// A current-schema export (META_DATA_EXPORT, no shortName/mangledName, no
// session start) with rows out of order, one bad row and an NCCL kernel.
TEST(NsysSqliteImporterTest, HandlesNewSchemaOutOfOrderAndBadRows) {
  TempDir dir;
  std::string path = dir.path() + "/new.sqlite";
  ASSERT_TRUE(ExecSql(path, R"sql(
    CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.28.1');
    CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
    INSERT INTO StringIds VALUES(1,'gemm_kernel'),(2,'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),
      (3,'cudaLaunchKernel_v7000'),(4,'cudaStreamSynchronize_v3020'),(5,'step 1');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT,
      correlationId INT, globalPid INT, demangledName INT, greenContextId INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
      (5000, 6000, 1, 13, 11, 0x2A000000, 2, 0),
      (1000, 2000, 1, 7, 10, 0x2A000000, 1, 0),
      (3000, 2500, 1, 7, 12, 0x2A000000, 1, 0);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT,
      correlationId INT, nameId INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
      (900, 950, 0, 0x2A000000 + 43, 10, 3), (960, 4000, 0, 0x2A000000 + 43, 13, 4);
    CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, globalTid INT,
      textId INT);
    INSERT INTO NVTX_EVENTS VALUES (800, 7000, 59, NULL, 0x2A000000 + 43, 5);
    CREATE TABLE MPI_RANKS(globalTid INT, rank INT);
    INSERT INTO MPI_RANKS VALUES (0x2A000000 + 43, 3);
  )sql"));
  auto importer = NewNsysSqliteImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  const SourceFile& f = t.files[0];
  EXPECT_EQ(f.skipped, 1u);  // end before start
  ASSERT_FALSE(f.errors.empty());
  EXPECT_NE(f.errors[0].find("CUPTI_ACTIVITY_KIND_KERNEL row 3"), std::string::npos);
  EXPECT_NE(f.alignment.find("needs alignment"), std::string::npos);
  EXPECT_EQ(CountKind(t, EventKind::kKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kCommKernel), 1);
  EXPECT_EQ(CountKind(t, EventKind::kSync), 1);
  EXPECT_EQ(CountNamed(t, "cudaStreamSynchronize"), 1);
  EXPECT_EQ(CountNamed(t, "step 1"), 1);
  // Sorted by start after Finish(), whatever the row order.
  EXPECT_TRUE(std::is_sorted(t.events.begin(), t.events.end(), [](const Event& a, const Event& b) {
    return a.start_ns < b.start_ns;
  }));
  for (const Process& p : t.processes) {
    EXPECT_EQ(p.pid, 42);
    EXPECT_EQ(p.rank, 3);
  }
}

TEST(NsysSqliteImporterTest, MissingRequiredColumnMarksPartialAndNamesIt) {
  TempDir dir;
  std::string path = dir.path() + "/cols.sqlite";
  ASSERT_TRUE(ExecSql(path, R"sql(
    CREATE TABLE EXPORT_META_DATA(name TEXT, value TEXT);
    CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, streamId INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 3);
  )sql"));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewNsysSqliteImporter()->Import(path, b, nullptr).ok());
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_TRUE(t.files[0].partial);
  ASSERT_FALSE(t.files[0].errors.empty());
  EXPECT_NE(t.files[0].errors[0].find("globalPid"), std::string::npos);
  EXPECT_TRUE(t.events.empty());
}

}  // namespace
}  // namespace gpufleet::trace
