#include "detect/baseline_store.h"

#include <map>
#include <utility>

#include "store/state_db.h"

namespace gpufleet::detect {
namespace {

class MemoryBaselineStore final : public BaselineStore {
 public:
  StatusOr<std::vector<Baseline>> LoadAll() override {
    std::vector<Baseline> out;
    for (const auto& [k, b] : rows_) out.push_back(b);
    return out;
  }
  Status Save(const std::vector<Baseline>& baselines) override {
    for (const Baseline& b : baselines) rows_[{b.key, b.metric}] = b;
    return OkStatus();
  }

 private:
  std::map<std::pair<std::string, std::string>, Baseline> rows_;
};

const std::vector<Migration>& DetectMigrations() {
  static const std::vector<Migration>* m = new std::vector<Migration>{
      {"detect", 1,
       "CREATE TABLE detect_baselines ("
       "  key TEXT NOT NULL, metric TEXT NOT NULL, count INTEGER NOT NULL,"
       "  mean REAL NOT NULL, m2 REAL NOT NULL, updated_ns INTEGER NOT NULL,"
       "  PRIMARY KEY (key, metric));"},
  };
  return *m;
}

class SqliteBaselineStore final : public BaselineStore {
 public:
  explicit SqliteBaselineStore(std::unique_ptr<StateDb> db) : db_(std::move(db)) {}

  StatusOr<std::vector<Baseline>> LoadAll() override {
    ASSIGN_OR_RETURN(Statement st, db_->Prepare("SELECT key, metric, count, mean, m2, updated_ns "
                                                "FROM detect_baselines ORDER BY key, metric"));
    std::vector<Baseline> out;
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      Baseline b;
      b.key = st.ColumnText(0);
      b.metric = st.ColumnText(1);
      b.count = st.ColumnInt64(2);
      b.mean = st.ColumnDouble(3);
      b.m2 = st.ColumnDouble(4);
      b.updated_ns = st.ColumnInt64(5);
      if (b.count < 0 || b.m2 < 0) {
        return DataLossError(db_->path() + ": detect_baselines row (" + b.key + ", " + b.metric +
                             ") has a negative count or m2");
      }
      out.push_back(std::move(b));
    }
    return out;
  }

  Status Save(const std::vector<Baseline>& baselines) override {
    if (baselines.empty()) return OkStatus();
    // Rolled back on any failure, the COMMIT's included: a transaction left
    // open would hold the write lock of the server's one state database.
    Transaction tx(db_.get());
    RETURN_IF_ERROR(tx.Begin());
    RETURN_IF_ERROR(SaveRows(baselines));
    return tx.Commit();
  }

 private:
  Status SaveRows(const std::vector<Baseline>& baselines) {
    ASSIGN_OR_RETURN(Statement st, db_->Prepare("INSERT OR REPLACE INTO detect_baselines "
                                                "(key, metric, count, mean, m2, updated_ns) "
                                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    for (const Baseline& b : baselines) {
      st.Bind(1, std::string_view(b.key))
          .Bind(2, std::string_view(b.metric))
          .Bind(3, b.count)
          .Bind(4, b.mean)
          .Bind(5, b.m2)
          .Bind(6, b.updated_ns);
      RETURN_IF_ERROR(st.Run());
      RETURN_IF_ERROR(st.Reset());
    }
    return OkStatus();
  }

  std::unique_ptr<StateDb> db_;
};

}  // namespace

std::unique_ptr<BaselineStore> NewMemoryBaselineStore() {
  return std::make_unique<MemoryBaselineStore>();
}

StatusOr<std::unique_ptr<BaselineStore>> OpenSqliteBaselineStore(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<StateDb> db, StateDb::Open(path, DetectMigrations()));
  return std::unique_ptr<BaselineStore>(std::make_unique<SqliteBaselineStore>(std::move(db)));
}

}  // namespace gpufleet::detect
