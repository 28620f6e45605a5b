#include "trace/nsys_page_faults.h"

#include <sqlite3.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "trace/testing/importer_test_util.h"

namespace gpufleet::trace {
namespace {

// Column lists as the nsys export schema declares them (the real 2022.2
// export in tests/data/trace shows the same); the rows are written here.
constexpr char kFaultTableSql[] =
    "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL, address INTEGER NOT NULL, "
    "numberOfPageFaults INTEGER NOT NULL, faultAccessType INTEGER NOT NULL);";
constexpr char kGpuTableSql[] =
    "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, "
    "busLocation TEXT, uuid TEXT, cuDevice INTEGER);"
    "INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, 0, 'NVIDIA H100 80GB HBM3', "
    "'0000:18:00.0', '5c0e71a4-3b1d-4c52-9e1f-2a6b7d8e9f01', 0);"
    "INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, 1, 'NVIDIA H100 80GB HBM3', "
    "'0000:2a:00.0', '0d4b6c2e-8f3a-4e71-b5c9-1f2e3d4c5b6a', 1);";
// A 4 s session.
constexpr char kDetailsSql[] =
    "CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL, "
    "startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL);"
    "INSERT INTO ANALYSIS_DETAILS VALUES (281474976710656, 4000000000, 100, 4000000100);";
constexpr char kMeta3Sql[] = "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);";
constexpr char kMeta2Sql[] = "CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT);";

std::string Fault(int device, int count) {
  return "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (1000, 2000, 302119223558144, " +
         std::to_string(device) + ", 140031234031616, " + std::to_string(count) + ", 1);";
}

class NsysPageFaultsTest : public ::testing::Test {
 protected:
  std::string Db(const std::string& name, const std::string& sql) {
    const std::string path = dir_.path() + "/" + name;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err != nullptr ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
    return path;
  }
  TempDir dir_;
};

// The real export (nsys 2022.2, schema 2.9.1) has the table, empty: that
// exporter creates every table, so nothing says faults were traced.
TEST_F(NsysPageFaultsTest, RealSchema2ExportWithAnEmptyTableIsNotKnownToBeTraced) {
  const std::string path =
      std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/trace/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(got->traced);
  EXPECT_EQ(got->rows, 0);
  EXPECT_DOUBLE_EQ(got->duration_s, 2.269032514);
  ASSERT_EQ(got->devices.size(), 1u);
  EXPECT_EQ(got->devices[0].uuid, "74e128b2-90b6-b409-07c8-33bee5ff6f88");
  EXPECT_FALSE(got->FaultsPerSecond("GPU-74e128b2-90b6-b409-07c8-33bee5ff6f88").has_value());
}

TEST_F(NsysPageFaultsTest, FaultsPerSecondPerGpuNamedByUuid) {
  const std::string path =
      Db("um.sqlite", std::string(kMeta3Sql) + kDetailsSql + kGpuTableSql + kFaultTableSql +
                          Fault(0, 12) + Fault(0, 3) + Fault(1, 400) + Fault(1, 600));
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->traced);
  EXPECT_EQ(got->rows, 4);
  ASSERT_EQ(got->devices.size(), 2u);
  EXPECT_EQ(got->devices[0].faults, 15);
  EXPECT_EQ(got->devices[1].faults, 1000);
  // NVML's form of the UUID, any case, names the export's device.
  EXPECT_DOUBLE_EQ(*got->FaultsPerSecond("GPU-0D4B6C2E-8F3A-4E71-B5C9-1F2E3D4C5B6A"), 250.0);
  EXPECT_DOUBLE_EQ(*got->FaultsPerSecond("5c0e71a4-3b1d-4c52-9e1f-2a6b7d8e9f01"), 3.75);
  EXPECT_FALSE(got->FaultsPerSecond("GPU-ffffffff-0000-0000-0000-000000000000").has_value());
  // Two GPUs: without a UUID there is no telling which.
  EXPECT_FALSE(got->FaultsPerSecond("").has_value());
}

// Schema 3 exports hold a table only when its data was captured: an empty
// one is a traced session without faults, which is a figure (0), not a gap.
TEST_F(NsysPageFaultsTest, EmptyTableOfASchema3ExportIsZeroFaults) {
  const std::string path =
      Db("none.sqlite", std::string(kMeta3Sql) + kDetailsSql + kGpuTableSql + kFaultTableSql);
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->traced);
  EXPECT_DOUBLE_EQ(*got->FaultsPerSecond("GPU-5c0e71a4-3b1d-4c52-9e1f-2a6b7d8e9f01"), 0.0);
}

// A schema 2 export with rows was traced; its lone GPU is named without a
// UUID.
TEST_F(NsysPageFaultsTest, Schema2ExportWithRowsIsTraced) {
  const std::string one_gpu =
      "CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, uuid TEXT);"
      "INSERT INTO TARGET_INFO_GPU VALUES (0, '74e128b2-90b6-b409-07c8-33bee5ff6f88');";
  const std::string path = Db("v2.sqlite", std::string(kMeta2Sql) + kDetailsSql + one_gpu +
                                               kFaultTableSql + Fault(0, 8000));
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->traced);
  EXPECT_DOUBLE_EQ(*got->FaultsPerSecond(""), 2000.0);
}

TEST_F(NsysPageFaultsTest, UntracedExportIsNotFoundAndSaysHowToTrace) {
  const std::string path = Db("plain.sqlite", std::string(kMeta3Sql) + kDetailsSql + kGpuTableSql);
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(path);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_NE(got.status().message().find("--cuda-um-gpu-page-faults=true"), std::string::npos);
  EXPECT_NE(got.status().message().find(path), std::string::npos);
}

TEST_F(NsysPageFaultsTest, OtherFilesAreRefusedNamingTheFile) {
  const std::string other = Db("other.sqlite", "CREATE TABLE t (a INTEGER);");
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(other);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("other.sqlite: not an Nsight Systems SQLite export"),
            std::string::npos);

  const std::string text = dir_.path() + "/report.sqlite";
  std::ofstream(text) << "not a database\n";
  got = ReadNsysPageFaults(text);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find(text), std::string::npos);
}

TEST_F(NsysPageFaultsTest, BadRowsAreCountedAndMissingFieldsNamed) {
  const std::string bad =
      Db("bad.sqlite",
         std::string(kMeta3Sql) + kDetailsSql + kGpuTableSql +
             "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (deviceId INTEGER, numberOfPageFaults "
             "INTEGER);"
             "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (0, 40);"
             "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (0, NULL);"
             "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (1, -5);");
  StatusOr<NsysPageFaults> got = ReadNsysPageFaults(bad);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->rows, 1);
  EXPECT_EQ(got->bad_rows, 2);
  EXPECT_EQ(got->first_bad,
            bad + ": CUDA_UM_GPU_PAGE_FAULT_EVENTS row 2: deviceId or numberOfPageFaults is NULL");
  EXPECT_DOUBLE_EQ(*got->FaultsPerSecond("GPU-5c0e71a4-3b1d-4c52-9e1f-2a6b7d8e9f01"), 10.0);
  EXPECT_DOUBLE_EQ(*got->FaultsPerSecond("GPU-0d4b6c2e-8f3a-4e71-b5c9-1f2e3d4c5b6a"), 0.0);

  const std::string no_count =
      Db("nocount.sqlite", std::string(kMeta3Sql) + kDetailsSql +
                               "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (deviceId INTEGER);");
  got = ReadNsysPageFaults(no_count);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find(
                "table CUDA_UM_GPU_PAGE_FAULT_EVENTS has no column 'numberOfPageFaults'"),
            std::string::npos);

  const std::string no_length =
      Db("nolength.sqlite", std::string(kMeta3Sql) + kFaultTableSql + Fault(0, 1));
  got = ReadNsysPageFaults(no_length);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("no ANALYSIS_DETAILS table"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::trace
