#include "store/state_db.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/file_util.h"

namespace gpufleet {
namespace {

class StateDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpufleet_state_db_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

const std::vector<Migration> kV1 = {{"widgets", 1, "CREATE TABLE widgets (id INTEGER);"}};
const std::vector<Migration> kV2 = {{"widgets", 1, "CREATE TABLE widgets (id INTEGER);"},
                                    {"widgets", 2, "ALTER TABLE widgets ADD COLUMN name TEXT;"},
                                    {"gadgets", 1, "CREATE TABLE gadgets (id INTEGER);"}};

TEST_F(StateDbTest, CreatesInWalModeAndAppliesMigrations) {
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(Path("s.db"), kV1);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(*(*db)->Pragma("journal_mode"), "wal");
  EXPECT_EQ(*(*db)->SchemaVersion("widgets"), 1);
  EXPECT_EQ(*(*db)->SchemaVersion("nothing"), 0);
  EXPECT_TRUE((*db)->Exec("INSERT INTO widgets VALUES (7)").ok());
}

TEST_F(StateDbTest, UpgradesInPlaceAndKeepsData) {
  {
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(Path("s.db"), kV1);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO widgets VALUES (7)").ok());
  }
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(Path("s.db"), kV2);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(*(*db)->SchemaVersion("widgets"), 2);
  EXPECT_EQ(*(*db)->SchemaVersion("gadgets"), 1);
  {
    StatusOr<Statement> st = (*db)->Prepare("SELECT id, name FROM widgets");
    ASSERT_TRUE(st.ok());
    ASSERT_TRUE(*st->Step());
    EXPECT_EQ(st->ColumnInt64(0), 7);
  }
  // Re-opening applies nothing twice.
  db->reset();
  EXPECT_TRUE(StateDb::Open(Path("s.db"), kV2).ok());
}

TEST_F(StateDbTest, EmptyViewWithNullDataBindsEmptyStringNotNull) {
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(Path("s.db"), kV1);
  ASSERT_TRUE(db.ok());
  StatusOr<Statement> st = (*db)->Prepare("SELECT typeof(?1), length(?1)");
  ASSERT_TRUE(st.ok());
  st->Bind(1, std::string_view());  // data() is nullptr
  StatusOr<bool> row = st->Step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(st->ColumnText(0), "text");
  EXPECT_EQ(st->ColumnInt64(1), 0);
}

TEST_F(StateDbTest, RefusesNewerSchema) {
  ASSERT_TRUE(StateDb::Open(Path("s.db"), kV2).ok());
  StatusOr<std::unique_ptr<StateDb>> old = StateDb::Open(Path("s.db"), kV1);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(old.status().message().find("newer than this gpufleet knows"), std::string::npos);
}

TEST_F(StateDbTest, FailedMigrationRollsBack) {
  std::vector<Migration> bad = kV1;
  bad.push_back({"widgets", 2, "ALTER TABLE widgets ADD COLUMN x TEXT; SELECT * FROM nope;"});
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(Path("s.db"), bad);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("migration widgets v2"), std::string::npos)
      << db.status().message();
  StatusOr<std::unique_ptr<StateDb>> again = StateDb::Open(Path("s.db"), kV1);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*(*again)->SchemaVersion("widgets"), 1);
  EXPECT_TRUE((*again)->Exec("ALTER TABLE widgets ADD COLUMN x TEXT").ok())
      << "the half-applied v2 must have been rolled back";
}

TEST_F(StateDbTest, CorruptFileIsDataLossNamingThePath) {
  std::string path = Path("junk.db");
  ASSERT_TRUE(WriteStringToFile(path, std::string(8192, 'x')).ok());
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(path, kV1);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kDataLoss) << db.status().ToString();
  EXPECT_NE(db.status().message().find(path), std::string::npos);
}

TEST_F(StateDbTest, MissingDirectoryIsAnError) {
  StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(Path("no/such/dir/s.db"), kV1);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("no/such/dir"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet
