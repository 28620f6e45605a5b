// gpufleet cost report|budgets|summary|prices: the cost ledger of a server's state database
// (or of a running server's API), and the price catalog.
#include <cstdio>
#include <ctime>

#include "cli/command.h"
#include "core/clock.h"
#include "core/duration.h"
#include "core/file_util.h"
#include "core/strings.h"
#include "cost/cost_api.h"
#include "cost/cost_export.h"
#include "cost/cost_query.h"
#include "cost/cost_report.h"
#include "cost/job_query.h"
#include "cost/store_replay.h"
#include "detect/incident_store.h"
#include "net/http_client.h"
#include "schema/hardware_catalog.h"

namespace gpufleet {
namespace {

class CostCommand : public Command {
 public:
  std::string_view name() const override { return "cost"; }
  std::string_view help() const override {
    return "GPU cost per team, workload, model or cloud from the server's ledger; the price "
           "catalog.";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    report_ = app.add_subcommand("report", "Charges for a period, grouped (docs/cost.md)");
    report_->add_option("--db", db_, "The server's state database (its [server] db)");
    report_->add_option("--server", server_,
                        "Ask a running server instead (GET /api/v1/cost), e.g. "
                        "http://127.0.0.1:9840");
    report_->add_option("--from-store", store_,
                        "Recompute from a long-term store's Prometheus query API "
                        "(VictoriaMetrics, Prometheus), e.g. http://127.0.0.1:8428; "
                        "contention incidents come from --db when given");
    report_->add_option("--token", token_, "Bearer token (read or admin) for --server")
        ->envname("GPUFLEET_TOKEN");
    report_
        ->add_option(
            "--cacert", cacert_,
            "Trust the CA certificates in this PEM file for an https --server or --from-store")
        ->envname("GPUFLEET_CACERT");
    report_->add_option("--from", from_, "Start: -30d, -6h, 2026-12-01, RFC 3339 or unix s")
        ->capture_default_str();
    report_->add_option("--to", to_, "End (exclusive), same forms")->capture_default_str();
    report_->add_option("--by", by_, "Group by, comma-separated: " + Joined())
        ->capture_default_str();
    report_->add_option("--basis", basis_, "allocation, usage or usage-mean")
        ->check(CLI::IsMember({"allocation", "usage", "usage-mean"}))
        ->capture_default_str();
    report_->add_option("--idle", idle_, "Idle cost: none, proportional or owner")
        ->check(CLI::IsMember({"none", "proportional", "owner"}))
        ->capture_default_str();
    report_->add_option("--contention", contention_, "transfer, surcharge or off")
        ->check(CLI::IsMember({"transfer", "surcharge", "off"}))
        ->capture_default_str();
    report_->add_option("--surcharge", surcharge_, "Surcharge in USD per 10% slowdown per GPU-hour")
        ->capture_default_str();
    report_->add_option("--prices", prices_, "Site prices file (TOML; docs/cost.md)");
    report_
        ->add_option("--format", format_,
                     "text, csv, json, or focus (FinOps FOCUS 1.2 rows; docs/cost.md)")
        ->check(CLI::IsMember({"text", "csv", "json", "focus"}))
        ->capture_default_str();
    report_->add_flag("--jobs", jobs_,
                      "JSON: add \"jobs\" ($/job, $/step, $/Mtoken per workload; with --db or "
                      "--server), as a report grouped by workload does");
    report_->add_option("-o,--output", output_, "Write here instead of stdout");

    budgets_ = app.add_subcommand("budgets", "Each [[budget]]'s month so far and its forecast");
    budgets_->add_option("--db", db_, "The server's state database")->required();
    budgets_->add_option("--prices", prices_, "Site prices file with [[budget]] tables")
        ->required();
    budgets_->add_option("--at", at_, "As of (same forms as --from)")->capture_default_str();

    summary_ = app.add_subcommand(
        "summary", "A team's month in plain language: cost, cost per step and what moved it");
    summary_->add_option("--db", db_, "The server's state database")->required();
    summary_->add_option("--team", team_, "The team (as `cost report --by team` names it)")
        ->required();
    summary_->add_option("--month", month_, "YYYY-MM (UTC); default: this month");
    summary_->add_option("--prices", prices_, "Site prices file (TOML; docs/cost.md)");
    summary_->add_option("--at", at_, "Charge a month still running up to this time (as --from)")
        ->capture_default_str();
    summary_->add_option("--format", summary_format_, "text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();

    prices_cmd_ = app.add_subcommand("prices", "Per-GPU-hour prices of the embedded catalog");
    prices_cmd_->add_option("--cloud", cloud_, "Only this cloud");
    prices_cmd_->add_option("--region", region_, "Only this region");
    prices_cmd_->add_option("--gpu", gpu_, "Only this GPU model key (data/hardware.toml)");
    prices_cmd_->add_flag("--spot", spot_, "Spot prices instead of on-demand");
    prices_cmd_->add_flag("--host-split", host_split_,
                          "Split the host's CPU and memory off at OpenCost's default rates");
  }

  Status Run() override {
    if (prices_cmd_->parsed()) return ListPrices();
    if (budgets_->parsed()) return Budgets();
    if (summary_->parsed()) return Summary();
    std::string text;
    if (!server_.empty()) {
      ASSIGN_OR_RETURN(text, FromServer());
    } else {
      ASSIGN_OR_RETURN(text, FromDb());
    }
    if (output_.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return OkStatus();
    }
    return WriteStringToFile(output_, text);
  }

 private:
  static std::string Joined() {
    std::string s;
    for (const std::string& n : cost::GroupingNames()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  StatusOr<std::string> FromDb() {
    if (db_.empty() && store_.empty()) {
      return InvalidArgumentError("cost report needs --db FILE, --server URL or --from-store URL");
    }
    int64_t now = std::time(nullptr);
    ASSIGN_OR_RETURN(int64_t from, cost::ParseTimeArg(from_, now));
    ASSIGN_OR_RETURN(int64_t to, cost::ParseTimeArg(to_, now));
    if (to <= from) return InvalidArgumentError("--to must be after --from");
    cost::LedgerPolicy policy;
    ASSIGN_OR_RETURN(policy.basis, cost::ParseBasis(basis_));
    ASSIGN_OR_RETURN(policy.idle, cost::ParseIdleRule(idle_));
    ASSIGN_OR_RETURN(policy.contention, cost::ParseContentionRule(contention_));
    policy.surcharge_usd_per_10pct_gpu_hour = surcharge_;
    cost::PriceBook book;
    if (!prices_.empty()) {
      ASSIGN_OR_RETURN(book, cost::PriceBook::Load(prices_));
    }
    ASSIGN_OR_RETURN(cost::Ledger ledger, Ledger(book, policy, from, to));
    if (format_ == "focus") {
      for (const std::string& w : ledger.warnings) {
        std::fprintf(stderr, "gpufleet cost: partial: %s\n", w.c_str());
      }
      return cost::RenderFocusCsv(ledger, book.teams());
    }
    ASSIGN_OR_RETURN(cost::CostReport report,
                     cost::BuildReport(ledger, SplitList(by_), book.teams()));
    if (format_ != "text") {
      for (const std::string& w : report.warnings) {
        std::fprintf(stderr, "gpufleet cost: partial: %s\n", w.c_str());
      }
    }
    if (format_ == "csv") return cost::RenderCsv(report);
    if (format_ == "json" && !db_.empty() && store_.empty() &&
        cost::JobsWanted(SplitList(by_), jobs_)) {
      ASSIGN_OR_RETURN(std::vector<cost::JobCost> jobs, Jobs(ledger, book, from, to));
      return cost::WithJobs(cost::RenderJson(report), jobs);
    }
    if (format_ == "json") return cost::RenderJson(report);
    return cost::RenderText(report);
  }

  // $/job, $/step, $/Mtoken of the ledger's workloads from --db's work meter.
  StatusOr<std::vector<cost::JobCost>> Jobs(const cost::Ledger& ledger, const cost::PriceBook& book,
                                            int64_t from, int64_t to) {
    StateDb::Options opts;
    opts.create = false;
    ASSIGN_OR_RETURN(std::unique_ptr<StateDb> db,
                     StateDb::Open(db_, cost::CostReaderMigrations(), opts));
    cost::WorkMeter work(db.get());
    ASSIGN_OR_RETURN(auto totals, work.Totals(from, to));
    return cost::JobCosts(ledger, totals, book.teams());
  }

  // The ledger of [from, to) from the state database, or replayed from the
  // long-term store into a scratch database (incidents from --db if any).
  StatusOr<cost::Ledger> Ledger(const cost::PriceBook& book, const cost::LedgerPolicy& policy,
                                int64_t from, int64_t to) {
    std::unique_ptr<StateDb> db;
    if (!db_.empty()) {
      StateDb::Options opts;
      opts.create = false;
      ASSIGN_OR_RETURN(db, StateDb::Open(db_, cost::CostReaderMigrations(), opts));
    }
    if (store_.empty()) {
      cost::Meter meter(db.get());
      detect::IncidentStore incidents(db.get());
      return cost::LedgerFromStores(meter, incidents, book, policy, from, to);
    }
    ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::Create("gpufleet-cost"));
    ASSIGN_OR_RETURN(std::unique_ptr<StateDb> replayed,
                     StateDb::Open(scratch.path() + "/ledger.db", cost::CostMigrations()));
    cost::Meter meter(replayed.get());
    std::unique_ptr<HttpClient> client = NewHttpClient({.keep_alive = true, .ca_file = cacert_});
    ASSIGN_OR_RETURN(cost::StoreReplayStats stats,
                     cost::ReplayFromStore(*client, store_, from, to, meter));
    std::fprintf(stderr, "gpufleet cost: %lld samples of %lld series from %s (%lld queries)\n",
                 static_cast<long long>(stats.samples), static_cast<long long>(stats.series),
                 store_.c_str(), static_cast<long long>(stats.queries));
    std::unique_ptr<detect::IncidentBook> none = detect::NewMemoryIncidentBook();
    std::unique_ptr<detect::IncidentStore> stored;
    if (db) stored = std::make_unique<detect::IncidentStore>(db.get());
    detect::IncidentBook& incidents = stored ? *stored : *none;
    ASSIGN_OR_RETURN(cost::Ledger ledger,
                     cost::LedgerFromStores(meter, incidents, book, policy, from, to));
    if (!stored) {
      ledger.warnings.push_back(
          "contention not charged: incidents live in the server's state database (--db)");
    }
    return ledger;
  }

  StatusOr<std::string> FromServer() {
    std::string url = server_ + "/api/v1/cost?from=" + from_ + "&to=" + to_ + "&by=" + by_ +
                      "&basis=" + basis_ + "&idle=" + idle_ + "&contention=" + contention_ +
                      "&format=" + format_ + (jobs_ ? "&jobs=true" : "");
    return HttpGet(*NewHttpClient({.ca_file = cacert_}), url, 30 * kNsPerSecond,
                   BearerHeader(token_));
  }

  static std::vector<std::string> SplitList(const std::string& s) {
    std::vector<std::string> out;
    for (std::string_view part : SplitString(s, ',')) {
      std::string p(TrimWhitespace(part));
      if (!p.empty()) out.push_back(p);
    }
    return out;
  }

  Status Budgets() {
    ASSIGN_OR_RETURN(cost::PriceBook book, cost::PriceBook::Load(prices_));
    ASSIGN_OR_RETURN(int64_t at, cost::ParseTimeArg(at_, std::time(nullptr)));
    StateDb::Options opts;
    opts.create = false;
    ASSIGN_OR_RETURN(std::unique_ptr<StateDb> db,
                     StateDb::Open(db_, cost::CostReaderMigrations(), opts));
    cost::Meter meter(db.get());
    detect::IncidentStore incidents(db.get());
    ASSIGN_OR_RETURN(std::vector<cost::BudgetStatus> statuses,
                     cost::BudgetStatuses(meter, incidents, book, at));
    std::string text = cost::RenderBudgets(statuses);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return OkStatus();
  }

  Status Summary() {
    cost::PriceBook book;
    if (!prices_.empty()) {
      ASSIGN_OR_RETURN(book, cost::PriceBook::Load(prices_));
    }
    StateDb::Options opts;
    opts.create = false;
    ASSIGN_OR_RETURN(std::unique_ptr<StateDb> db,
                     StateDb::Open(db_, cost::CostReaderMigrations(), opts));
    cost::Meter meter(db.get());
    cost::WorkMeter work(db.get());
    detect::IncidentStore incidents(db.get());
    ASSIGN_OR_RETURN(int64_t now, cost::ParseTimeArg(at_, std::time(nullptr)));
    std::string month = month_.empty() ? IsoTime(now).substr(0, 7) : month_;
    ASSIGN_OR_RETURN(cost::TeamSummary s,
                     cost::TeamSummaryFromStores(meter, work, incidents, book, team_, month, now));
    std::string text =
        summary_format_ == "json" ? cost::RenderSummaryJson(s) : cost::RenderSummaryText(s);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return OkStatus();
  }

  Status ListPrices() {
    const cost::PriceCatalog& c = cost::PriceCatalog::Default();
    std::printf("%-11s %-22s %-28s %-14s %6s %10s %14s  %s\n", "CLOUD", "REGION", "INSTANCE", "GPU",
                "GPUS", "USD/GPU-H", "USD/PFLOP-H", "BASIS");
    for (const cost::CloudOffer& o : c.offers()) {
      if (!cloud_.empty() && o.cloud != cloud_) continue;
      if (!region_.empty() && o.region != region_) continue;
      if (!gpu_.empty() && o.gpu != gpu_) continue;
      cost::HostSplitRates rates;
      rates.enabled = host_split_;
      StatusOr<cost::GpuHourPrice> p = cost::PriceCatalog::PerGpuHour(o, spot_, rates);
      if (!p.ok()) continue;
      // Per peak dense bf16 PFLOP/s-hour: the price of compute before
      // measured efficiency (docs/cost.md).
      const GpuModelSpec* spec = HardwareCatalog::Default().Find(o.gpu);
      double pf = spec != nullptr ? spec->peak_bf16_flops / 1e15 : 0;
      std::string per_pf = pf > 0 ? std::to_string(p->usd_per_gpu_hour / pf) : "-";
      per_pf = per_pf.substr(
          0, per_pf.find('.') == std::string::npos ? per_pf.size() : per_pf.find('.') + 5);
      std::printf("%-11s %-22s %-28s %-14s %6g %10.4f %14s  %s\n", o.cloud.c_str(),
                  o.region.c_str(), o.instance_type.c_str(), o.gpu.c_str(), o.gpu_count,
                  p->usd_per_gpu_hour, per_pf.c_str(), p->basis.c_str());
    }
    std::printf(
        "Source: %s (public list prices; not current quotes). USD/PFLOP-H: per peak "
        "dense bf16 PFLOP/s for an hour (data/hardware.toml).\n",
        c.snapshot().c_str());
    return OkStatus();
  }

  CLI::App* report_ = nullptr;
  std::string store_;
  CLI::App* prices_cmd_ = nullptr;
  CLI::App* budgets_ = nullptr;
  CLI::App* summary_ = nullptr;
  std::string team_, month_, summary_format_ = "text";
  std::string at_ = "now";
  std::string db_, server_, prices_, output_;
  std::string token_, cacert_;
  std::string from_ = "-30d", to_ = "now", by_ = "team";
  std::string basis_ = "allocation", idle_ = "none", contention_ = "transfer", format_ = "text";
  double surcharge_ = 0.20;
  std::string cloud_, region_, gpu_;
  bool spot_ = false;
  bool jobs_ = false;
  bool host_split_ = false;
};

}  // namespace

std::unique_ptr<Command> NewCostCommand() { return std::make_unique<CostCommand>(); }

}  // namespace gpufleet
