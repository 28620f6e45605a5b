#include "server/canary_runs.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/clock.h"

namespace gpufleet {
namespace {

using nlohmann::json;

json NumberOrNull(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return nullptr;
  double v = it->get<double>();
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string StringOr(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

const std::vector<Migration>& CanaryRunMigrations() {
  static const std::vector<Migration> kMigrations = {
      {"canary_runs", 1,
       "CREATE TABLE canary_runs ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " node TEXT NOT NULL,"
       " image TEXT NOT NULL,"
       " started_ns INTEGER NOT NULL,"
       " verdict TEXT NOT NULL,"
       " targets TEXT NOT NULL,"  // "\n"-joined check targets, for the filter
       " checks TEXT NOT NULL);"  // JSON array, the API's shape
       "CREATE INDEX canary_runs_by_node ON canary_runs (node, id);"},
  };
  return kMigrations;
}

StatusOr<int64_t> CanaryRuns::Record(std::string_view body, int64_t now_ns) {
  json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return InvalidArgumentError("body: want a JSON object");
  auto checks = doc.find("checks");
  if (checks == doc.end() || !checks->is_array()) {
    return InvalidArgumentError("checks: want an array");
  }
  json out = json::array();
  std::string verdict = "pass";
  std::string targets = "\n";
  for (const json& c : *checks) {
    if (!c.is_object()) continue;
    std::string v = StringOr(c, "verdict");
    if (v == "regression" || v == "fail") {
      verdict = "fail";
    } else if (v != "pass" && verdict == "pass") {
      verdict = "warn";
    }
    json value = NumberOrNull(c, "median");
    json baseline = NumberOrNull(c, "baseline_median");
    json delta = nullptr;
    if (value.is_number() && baseline.is_number() && baseline.get<double>() != 0) {
      delta = (value.get<double>() - baseline.get<double>()) / baseline.get<double>();
    }
    std::string target = StringOr(c, "target");
    if (!target.empty()) targets += target + "\n";
    out.push_back({{"name", StringOr(c, "benchmark")},
                   {"target", target},
                   {"verdict", v},
                   {"value", value},
                   {"baseline", baseline},
                   {"delta_ratio", delta},
                   {"unit", StringOr(c, "unit")},
                   {"message", StringOr(c, "reason")}});
  }
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Statement ins,
                   db_->Prepare("INSERT INTO canary_runs (node, image, started_ns, verdict, "
                                "targets, checks) VALUES (?, ?, ?, ?, ?, ?)"));
  ins.Bind(1, StringOr(doc, "node"))
      .Bind(2, StringOr(doc, "image"))
      .Bind(3, now_ns)
      .Bind(4, verdict)
      .Bind(5, targets)
      .Bind(6, out.dump(-1, ' ', false, json::error_handler_t::replace));
  RETURN_IF_ERROR(ins.Run());
  ASSIGN_OR_RETURN(Statement last, db_->Prepare("SELECT last_insert_rowid()"));
  ASSIGN_OR_RETURN(bool row, last.Step());
  if (!row) return InternalError(db_->path() + ": no rowid after insert");
  return last.ColumnInt64(0);
}

StatusOr<std::string> CanaryRuns::ListJson(const std::string& target, int64_t limit,
                                           bool latest_per_node) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string sql = "SELECT id, node, image, started_ns, verdict, checks FROM canary_runs WHERE 1";
  if (!target.empty()) sql += " AND (node = ? OR instr(targets, ?) > 0)";
  if (latest_per_node) sql += " AND id IN (SELECT MAX(id) FROM canary_runs GROUP BY node)";
  sql += " ORDER BY id DESC LIMIT " + std::to_string(limit);
  ASSIGN_OR_RETURN(Statement st, db_->Prepare(sql));
  if (!target.empty()) st.Bind(1, target).Bind(2, "\n" + target + "\n");
  json runs = json::array();
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    json checks = json::parse(st.ColumnText(5), nullptr, /*allow_exceptions=*/false);
    if (!checks.is_array()) {
      return DataLossError(db_->path() + ": canary_runs[" + std::to_string(st.ColumnInt64(0)) +
                           "]: stored checks do not decode");
    }
    runs.push_back({{"id", st.ColumnInt64(0)},
                    {"target", st.ColumnText(1)},
                    {"image", st.ColumnText(2)},
                    {"started", static_cast<double>(st.ColumnInt64(3)) / 1e9},
                    {"verdict", st.ColumnText(4)},
                    {"checks", std::move(checks)}});
  }
  return json({{"runs", runs}}).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpufleet
