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

// Issue 19: a 2024.x export (schema 3.x), built from the documented schema
// (../shared/reference/traces.md section 3: nsys 2024.5.1 = schema 3.13.2):
// META_DATA_EXPORT, the kernel table with its 3.x columns (greenContextId,
// graphId, clusterX/Y/Z...), ENUM_CUDA_MEMCPY_OPER naming copy kinds,
// TARGET_INFO_SESSION_START_TIME with its 3.x columns, NVTX text by textId.
TEST(NsysSqliteImporterTest, Schema3FamilyWithEnumTablesAndSessionStart) {
  TempDir dir;
  std::string path = dir.path() + "/nsys2024.sqlite";
  ASSERT_TRUE(ExecSql(path, R"sql(
    CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.13.2'),
      ('EXPORT_PRODUCT_VERSION','2024.5.1.113');
    CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES(1,'void gemm<float>(float *, int)'),(2,'gemm'),
      (3,'_Z4gemmIfEvPfi'),(4,'cudaLaunchKernel_v7000'),(5,'cudaMemcpyAsync_v3020'),
      (6,'forward');
    CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INTEGER PRIMARY KEY, name TEXT, label TEXT);
    INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),
      (1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),
      (8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device'),(11,'CUDA_MEMCPY_KIND_FUTURE','Future');
    CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT, utcTime TEXT, localTime TEXT,
      systemClockNs INT, sessionStartCntVctNs INT);
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1720000000000000000,
      '2024-07-03T09:46:40Z','2024-07-03T11:46:40+02:00',0,0);
    CREATE TABLE TARGET_INFO_GPU(vmId INT, id INT, name TEXT, busLocation TEXT, uuid TEXT,
      smCount INT);
    INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA H100 80GB HBM3','0000:18:00.0','GPU-x',132);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT NOT NULL, end INT NOT NULL,
      deviceId INT NOT NULL, contextId INT NOT NULL, greenContextId INT, streamId INT NOT NULL,
      correlationId INT, globalPid INT, demangledName INT NOT NULL, shortName INT NOT NULL,
      mangledName INT, launchType INT, cacheConfig INT, registersPerThread INT,
      gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT,
      staticSharedMemory INT, dynamicSharedMemory INT, localMemoryPerThread INT,
      localMemoryTotal INT, gridId INT, sharedMemoryExecuted INT, graphNodeId INT,
      sharedMemoryLimitConfig INT, qmdBulkReleaseDone INT, qmdPreexitDone INT,
      qmdLastCtaDone INT, graphId INT, clusterX INT, clusterY INT, clusterZ INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(2000, 5000, 0, 1, NULL, 7, 21, 0x2A000000,
      1, 2, 3, 0, 0, 32, 64, 1, 1, 256, 1, 1, 0, 0, 0, 0, 5, 0, NULL, 0, NULL, NULL, NULL,
      NULL, 1, 1, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT NOT NULL, end INT NOT NULL,
      deviceId INT NOT NULL, contextId INT NOT NULL, greenContextId INT, streamId INT NOT NULL,
      correlationId INT, globalPid INT, bytes INT NOT NULL, copyKind INT NOT NULL,
      deprecatedSrcId INT, srcKind INT, dstKind INT, srcDeviceId INT, srcContextId INT,
      dstDeviceId INT, dstContextId INT, migrationCause INT, graphNodeId INT, virtualAddress INT,
      copyCount INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
      (1000, 1500, 0, 1, NULL, 7, 20, 0x2A000000, 4096, 1, NULL, 0, 2, 0, 1, 0, 1, 0, NULL, 0, 1),
      (5500, 5800, 0, 1, NULL, 7, 22, 0x2A000000, 4096, 2, NULL, 2, 0, 0, 1, 0, 1, 0, NULL, 0, 1),
      (6000, 6100, 0, 1, NULL, 7, 23, 0x2A000000, 64, 11, NULL, 2, 2, 0, 1, 0, 1, 0, NULL, 0, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT NOT NULL, end INT NOT NULL,
      eventClass INT NOT NULL, globalTid INT, correlationId INT, nameId INT NOT NULL,
      returnValue INT NOT NULL, callchainId INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(900, 990, 1, 0x2A000000 + 43, 20, 5, 0, NULL),
      (1900, 1990, 1, 0x2A000000 + 43, 21, 4, 0, NULL);
    CREATE TABLE NVTX_EVENTS(start INT NOT NULL, end INT, eventType INT NOT NULL, rangeId INT,
      category INT, color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT,
      domainId INT, uint64Value INT, int64Value INT, doubleValue REAL, uint32Value INT,
      int32Value INT, floatValue REAL, jsonTextId INT, jsonText TEXT, binaryData TEXT);
    INSERT INTO NVTX_EVENTS VALUES(800, 6200, 59, NULL, NULL, NULL, NULL, 0x2A000000 + 43,
      NULL, 6, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  )sql"));
  auto importer = NewNsysSqliteImporter();
  ASSERT_TRUE(importer->Sniff(path, ReadHead(path)));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(importer->Import(path, b, nullptr).ok());
  b.Finish();
  const SourceFile& f = t.files[0];
  EXPECT_EQ(f.format_version, "nsys 2024.5.1.113, export schema 3.13.2 (META_DATA_EXPORT)");
  EXPECT_EQ(f.skipped, 0u);
  EXPECT_FALSE(f.partial);
  EXPECT_TRUE(f.epoch_clock);
  EXPECT_EQ(CountNamed(t, "void gemm<float>(float *, int)"), 1);  // demangledName first
  EXPECT_EQ(CountNamed(t, "Memcpy HtoD"), 1);                     // from ENUM_CUDA_MEMCPY_OPER
  EXPECT_EQ(CountNamed(t, "Memcpy DtoH"), 1);
  EXPECT_EQ(CountNamed(t, "Memcpy Future"), 1);  // a kind only the enum table knows
  EXPECT_EQ(CountNamed(t, "cudaLaunchKernel"), 1);
  EXPECT_EQ(CountNamed(t, "forward"), 1);
  const Event* kernel = nullptr;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::kKernel) kernel = &e;
  }
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->start_ns, 1720000000000000000LL + 2000);
  EXPECT_EQ(t.process(*kernel).device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.process(*kernel).pid, 42);
}

// Names stored inline as TEXT instead of StringIds ids are read as they are;
// ids missing from StringIds are counted with their table and row, and a
// kernel row with no name column at all is skipped and counted.
TEST(NsysSqliteImporterTest, InlineNamesAndMissingStringIdsAreCountedWithTheirRow) {
  TempDir dir;
  std::string path = dir.path() + "/inline.sqlite";
  ASSERT_TRUE(ExecSql(path, R"sql(
    CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.28.1');
    CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES(1,'known');
    CREATE TABLE TARGET_INFO_CUDA_DEVICE(gpuId INT, cudaId INT, pid INT, name TEXT);
    INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES(0, 0, 42, 'NVIDIA A100-SXM4-80GB');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT,
      correlationId INT, globalPid INT, demangledName, shortName INT);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
      (100, 200, 0, 7, 1, 0x2A000000, 'inline_kernel', NULL),
      (300, 400, 0, 7, 2, 0x2A000000, 1, NULL),
      (500, 600, 0, 7, 3, 0x2A000000, 99, NULL),
      (700, 800, 0, 7, 4, 0x2A000000, NULL, NULL);
  )sql"));
  Timeline t;
  TimelineBuilder b(t);
  ASSERT_TRUE(NewNsysSqliteImporter()->Import(path, b, nullptr).ok());
  b.Finish();
  const SourceFile& f = t.files[0];
  EXPECT_EQ(f.format_version,
            "nsys ?, export schema 3.28.1 (META_DATA_EXPORT), names inline as TEXT");
  EXPECT_EQ(CountNamed(t, "inline_kernel"), 1);
  EXPECT_EQ(CountNamed(t, "known"), 1);
  EXPECT_EQ(CountNamed(t, "<unknown string 99>"), 1);
  EXPECT_EQ(f.skipped, 1u);
  EXPECT_TRUE(f.partial);
  ASSERT_EQ(f.errors.size(), 2u);
  EXPECT_NE(f.errors[0].find("CUPTI_ACTIVITY_KIND_KERNEL row 4: no demangledName"),
            std::string::npos)
      << f.errors[0];
  EXPECT_NE(f.errors[1].find("1 names refer to ids missing from StringIds (first: "
                             "CUPTI_ACTIVITY_KIND_KERNEL row 3 (id 99))"),
            std::string::npos)
      << f.errors[1];
  EXPECT_EQ(t.processes[0].device_name, "NVIDIA A100-SXM4-80GB");
}

}  // namespace
}  // namespace gpufleet::trace
