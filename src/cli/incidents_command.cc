// gpufleet incidents list|show: reads incidents from a running server's API
// or straight from its SQLite state database.
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/clock.h"
#include "core/strings.h"
#include "detect/incident_store.h"
#include "net/http_client.h"
#include "server/http_api.h"
#include "store/state_db.h"

namespace gpufleet {
namespace {

using nlohmann::json;

std::string Time(int64_t ns) {
  if (ns == 0) return "-";
  time_t s = static_cast<time_t>(ns / kNsPerSecond);
  struct tm t;
  gmtime_r(&s, &t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &t);
  return buf;
}

std::string Join(const json& arr) {
  std::string out;
  for (const json& x : arr) out += (out.empty() ? "" : ",") + x.get<std::string>();
  return out.empty() ? "-" : out;
}

class IncidentsCommand : public Command {
 public:
  std::string_view name() const override { return "incidents"; }
  std::string_view help() const override {
    return "List and show incidents of a gpufleet server (by API or from its database).";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    list_ = app.add_subcommand("list", "List incidents, newest first");
    list_->add_option("--status", status_, "open, resolved or all")
        ->check(CLI::IsMember({"open", "resolved", "all"}))
        ->capture_default_str();
    show_ = app.add_subcommand("show", "Show one incident with its evidence");
    show_->add_option("id", id_, "Incident id")->required();
    for (CLI::App* sub : {list_, show_}) {
      sub->add_option("--server", server_, "Server URL (http:// or https://)")
          ->capture_default_str();
      sub->add_option("--token", token_, "Bearer token (read or admin) for --server")
          ->envname("GPUFLEET_TOKEN");
      sub->add_option("--cacert", cacert_,
                      "Trust the CA certificates in this PEM file for an https --server")
          ->envname("GPUFLEET_CACERT");
      sub->add_option("--db", db_, "Read this state database instead of asking a server");
      sub->add_flag("--json", json_, "Print JSON");
    }
  }

  Status Run() override {
    if (show_->parsed()) {
      ASSIGN_OR_RETURN(json inc, FetchOne());
      if (json_) {
        std::printf("%s\n", inc.dump(2).c_str());
        return OkStatus();
      }
      PrintOne(inc);
      return OkStatus();
    }
    ASSIGN_OR_RETURN(json list, FetchList());
    if (json_) {
      std::printf("%s\n", list.dump(2).c_str());
      return OkStatus();
    }
    std::printf("%-5s %-9s %-26s %-10s %-9s %-8s %-21s %s\n", "ID", "STATUS", "KIND", "TEAM",
                "SEVERITY", "SLOWDOWN", "FIRST SEEN", "DEVICES / SUMMARY");
    for (const json& i : list) {
      double slow = i.value("estimated_slowdown", 0.0);
      std::string slow_text =
          slow > 0 ? std::to_string(static_cast<int>(slow * 100 + 0.5)) + "%" : std::string("-");
      std::printf("%-5lld %-9s %-26s %-10s %-9s %-8s %-21s %s  %s\n",
                  static_cast<long long>(i.value("id", int64_t{0})), i.value("status", "").c_str(),
                  i.value("kind", "").c_str(), i.value("team", "").c_str(),
                  i.value("severity", "").c_str(), slow_text.c_str(),
                  Time(i.value("first_seen_ns", int64_t{0})).c_str(),
                  Join(i.value("devices", json::array())).c_str(), i.value("summary", "").c_str());
    }
    if (list.empty()) std::printf("(no incidents)\n");
    return OkStatus();
  }

 private:
  StatusOr<std::unique_ptr<StateDb>> OpenDb() {
    StateDb::Options o;
    o.create = false;
    return StateDb::Open(db_, detect::IncidentMigrations(), o);
  }

  StatusOr<json> FetchList() {
    if (!db_.empty()) {
      ASSIGN_OR_RETURN(std::unique_ptr<StateDb> db, OpenDb());
      detect::IncidentStore store(db.get());
      std::optional<detect::IncidentStatus> st;
      if (status_ != "all") st = detect::ParseIncidentStatus(status_);
      ASSIGN_OR_RETURN(std::vector<detect::IncidentRecord> list, store.List(st));
      json out = json::array();
      for (const detect::IncidentRecord& r : list) out.push_back(json::parse(IncidentJson(r, false)));
      return out;
    }
    ASSIGN_OR_RETURN(std::string body, HttpGet(*NewHttpClient({.ca_file = cacert_}),
                                               server_ + "/api/v1/incidents?status=" + status_,
                                               10 * kNsPerSecond, BearerHeader(token_)));
    json j = json::parse(body, nullptr, false);
    if (!j.is_object() || !j.contains("data")) {
      return DataLossError(server_ + ": answer is not an incident list");
    }
    return j["data"];
  }

  StatusOr<json> FetchOne() {
    if (!db_.empty()) {
      ASSIGN_OR_RETURN(std::unique_ptr<StateDb> db, OpenDb());
      detect::IncidentStore store(db.get());
      ASSIGN_OR_RETURN(std::optional<detect::IncidentRecord> r, store.Get(id_));
      if (!r.has_value()) return NotFoundError("no incident " + std::to_string(id_) + " in " + db_);
      return json::parse(IncidentJson(*r, true));
    }
    ASSIGN_OR_RETURN(std::string body, HttpGet(*NewHttpClient({.ca_file = cacert_}),
                                               server_ + "/api/v1/incidents/" + std::to_string(id_),
                                               10 * kNsPerSecond, BearerHeader(token_)));
    json j = json::parse(body, nullptr, false);
    if (!j.is_object() || !j.contains("data")) {
      return DataLossError(server_ + ": answer is not an incident");
    }
    return j["data"];
  }

  static void PrintOne(const json& i) {
    std::printf("incident %lld  %s  %s\n", static_cast<long long>(i.value("id", int64_t{0})),
                i.value("kind", "").c_str(), i.value("status", "").c_str());
    std::printf("  summary:    %s\n", i.value("summary", "").c_str());
    std::printf("  team:       %s   severity: %s\n", i.value("team", "").c_str(),
                i.value("severity", "").c_str());
    std::printf("  devices:    %s\n", Join(i.value("devices", json::array())).c_str());
    std::printf("  workloads:  %s\n", Join(i.value("workloads", json::array())).c_str());
    std::printf("  first seen: %s   last seen: %s   resolved: %s\n",
                Time(i.value("first_seen_ns", int64_t{0})).c_str(),
                Time(i.value("last_seen_ns", int64_t{0})).c_str(),
                Time(i.value("resolved_at_ns", int64_t{0})).c_str());
    std::printf("  slowdown:   %.0f%% (estimated)\n", i.value("estimated_slowdown", 0.0) * 100);
    for (const json& c : i.value("causes", json::array())) {
      std::printf("  cause:      %s %.0f%%: %s\n", c.value("cause", "").c_str(),
                  c.value("share", 0.0) * 100, c.value("explanation", "").c_str());
    }
    if (!i.value("capture_path", "").empty()) {
      std::printf("  capture:    %s\n", i.value("capture_path", "").c_str());
    }
    for (const json& e : i.value("evidence", json::array())) {
      std::string v;
      AppendDouble(e.value("value", 0.0), v);
      std::printf("  evidence:   %s %s (observed %s)\n", e.value("series", "").c_str(),
                  e.value("condition", "").c_str(), v.c_str());
    }
  }

  CLI::App* list_ = nullptr;
  CLI::App* show_ = nullptr;
  std::string status_ = "all";
  int64_t id_ = 0;
  std::string server_ = "http://127.0.0.1:9840";
  std::string token_;
  std::string cacert_;
  std::string db_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> NewIncidentsCommand() { return std::make_unique<IncidentsCommand>(); }

}  // namespace gpufleet
