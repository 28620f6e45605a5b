// gpufleet canary ingest|baseline|check: feeds external benchmark results
// (nccl-tests / rccl-tests, BabelStream, DCGM diag JSON) into the state
// database and gates new runs against per-target baselines. Exit status of
// `check`: 0 pass, 1 regression / fail / invalid (and inconclusive unless
// --allow-inconclusive), 2 bad usage.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "canary/gate.h"
#include "canary/gate_format.h"
#include "canary/ingest.h"
#include "cli/command.h"
#include "core/clock.h"
#include "schema/hardware_catalog.h"
#include "store/canary_store.h"

namespace gpufleet {
namespace {

using canary::ParseReport;

void PrintReport(const ParseReport& report, size_t files) {
  std::fprintf(stderr, "read %zu file(s): %zu data line(s), %zu line(s) skipped\n", files,
               report.data_lines, report.skipped_lines);
  for (const std::string& w : report.warnings) std::fprintf(stderr, "  skipped %s\n", w.c_str());
}

class CanaryCommand : public Command {
 public:
  std::string_view name() const override { return "canary"; }
  std::string_view help() const override {
    return "Gate nodes and images on benchmark results: ingest nccl-tests / "
           "rccl-tests, "
           "BabelStream and DCGM diag output, set per-target baselines, check "
           "new runs.";
  }

  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    ingest_ = app.add_subcommand("ingest", "Parse result files and store them in the state db");
    AddInputs(ingest_);
    AddDb(ingest_);

    CLI::App* baseline = app.add_subcommand("baseline", "Manage per-target baselines");
    baseline->require_subcommand(1);
    set_ = baseline->add_subcommand("set",
                                    "Set baselines from result files, or "
                                    "from results ingested for --target");
    set_->add_option("files", files_, "Result files (repetitions: several runs)");
    set_->add_option("--format", format_, "auto, nccl-tests, rccl-tests, babelstream, dcgm-diag")
        ->capture_default_str();
    set_->add_option("--target", target_spec_,
                     "model=...,driver=...,runtime=...,libs=...,image=... "
                     "(overrides what the "
                     "files say)");
    set_->add_flag("--from-db", from_db_, "Use the results ingested for --target instead of files");
    set_->add_flag("--force", force_, "Store figures that fail the hardware-peak sanity check");
    AddDb(set_);
    list_ = baseline->add_subcommand("list", "List stored baselines");
    list_->add_flag("--json", json_, "JSON output");
    AddDb(list_);

    check_ = app.add_subcommand("check", "Gate result files against stored baselines");
    AddInputs(check_);
    AddDb(check_);
    check_->add_flag("--json", json_, "Print the verdicts as JSON");
    check_->add_flag("--allow-inconclusive", allow_inconclusive_,
                     "Exit 0 when verdicts are only pass or inconclusive");
    check_->add_flag("--require-baseline", require_baseline_,
                     "Exit non-zero when a benchmark has no baseline");
    check_
        ->add_option("--tolerance", policy_.tolerance,
                     "Regression size the gate must catch (fraction)")
        ->capture_default_str()
        ->check(CLI::Range(0.001, 0.5));
    check_
        ->add_option("--min-repetitions", policy_.min_repetitions,
                     "Fewer repetitions give 'inconclusive'")
        ->capture_default_str();
  }

  Status Run() override {
    if (ingest_->parsed()) return Ingest();
    if (set_->parsed()) return SetBaseline();
    if (list_->parsed()) return List();
    if (check_->parsed()) return Check();
    return InvalidArgumentError("canary: expected ingest, baseline set|list or check");
  }

 private:
  void AddInputs(CLI::App* sub) {
    sub->add_option("files", files_, "Result files")->required();
    sub->add_option("--format", format_, "auto, nccl-tests, rccl-tests, babelstream, dcgm-diag")
        ->capture_default_str();
    sub->add_option("--target", target_spec_,
                    "model=...,driver=...,runtime=...,libs=...,image=... "
                    "(overrides what the "
                    "files say)");
  }
  void AddDb(CLI::App* sub) {
    sub->add_option("--db", db_path_, "SQLite state database (created if absent)")
        ->capture_default_str();
  }

  StatusOr<std::vector<canary::BenchmarkResult>> Load(ParseReport* report) {
    ASSIGN_OR_RETURN(canary::HardwareTarget target, canary::ParseHardwareTarget(target_spec_));
    ASSIGN_OR_RETURN(canary::ResultFormat format, canary::ResultFormatFromName(format_));
    StatusOr<std::vector<canary::BenchmarkResult>> r =
        canary::LoadResultFiles(files_, format, target, report);
    PrintReport(*report, files_.size());
    return r;
  }

  Status OpenStore() {
    ASSIGN_OR_RETURN(db_, StateDb::Open(db_path_, CanaryMigrations()));
    store_ = std::make_unique<SqliteBaselineStore>(db_.get());
    return OkStatus();
  }

  Status Ingest() {
    ParseReport report;
    ASSIGN_OR_RETURN(std::vector<canary::BenchmarkResult> results, Load(&report));
    RETURN_IF_ERROR(OpenStore());
    int64_t now = RealClock::Get().NowNs();
    for (const canary::BenchmarkResult& r : results) RETURN_IF_ERROR(store_->AddResult(r, now));
    std::printf("ingested %zu result(s) into %s\n", results.size(), db_path_.c_str());
    for (const canary::BenchmarkResult& r : results) {
      std::printf("  %-40s %zu value(s)  target %s\n", r.benchmark_id.c_str(), r.values.size(),
                  r.target.Key().c_str());
    }
    return OkStatus();
  }

  Status SetBaseline() {
    std::vector<canary::BenchmarkResult> results;
    if (from_db_) {
      if (!files_.empty()) return InvalidArgumentError("--from-db takes no files");
      ASSIGN_OR_RETURN(canary::HardwareTarget target, canary::ParseHardwareTarget(target_spec_));
      if (target.empty()) return InvalidArgumentError("--from-db needs --target");
      RETURN_IF_ERROR(OpenStore());
      ASSIGN_OR_RETURN(results, store_->Results(target.Key()));
      if (results.empty()) {
        return NotFoundError(db_path_ + ": no ingested results for target " + target.Key());
      }
    } else {
      if (files_.empty())
        return InvalidArgumentError("baseline set: give result files or --from-db");
      ParseReport report;
      ASSIGN_OR_RETURN(results, Load(&report));
      RETURN_IF_ERROR(OpenStore());
    }
    ASSIGN_OR_RETURN(std::vector<canary::Baseline> set,
                     canary::SetBaselines(results, *store_, &HardwareCatalog::Default(), force_,
                                          RealClock::Get().NowNs()));
    std::printf("set %zu baseline(s) in %s\n", set.size(), db_path_.c_str());
    for (const canary::Baseline& b : set) {
      std::printf("  %-40s median %.6g %s (n=%zu)  target %s\n", b.benchmark_id.c_str(), b.median,
                  b.unit.c_str(), b.values.size(), b.target_key.c_str());
    }
    return OkStatus();
  }

  Status List() {
    RETURN_IF_ERROR(OpenStore());
    ASSIGN_OR_RETURN(std::vector<canary::Baseline> all, store_->ListBaselines());
    for (const canary::Baseline& b : all) {
      std::printf("%s\t%s\t%.6g\t%s\tn=%zu\t%s\n", b.target_key.c_str(), b.benchmark_id.c_str(),
                  b.median, b.unit.c_str(), b.values.size(), b.source.c_str());
    }
    return OkStatus();
  }

  Status Check() {
    ParseReport report;
    ASSIGN_OR_RETURN(std::vector<canary::BenchmarkResult> results, Load(&report));
    RETURN_IF_ERROR(OpenStore());
    ASSIGN_OR_RETURN(canary::GateReport gate,
                     canary::RunGate(results, *store_, policy_, &HardwareCatalog::Default()));
    canary::ExitPolicy exit_policy;
    exit_policy.fail_on_inconclusive = !allow_inconclusive_;
    exit_policy.fail_on_no_baseline = require_baseline_;
    bool failed = canary::GateFailed(gate, exit_policy);
    std::string out = json_ ? canary::FormatGateJson(gate, failed) : canary::FormatGateTable(gate);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    if (failed) {
      return FailedPreconditionError(
          "gate failed: " + std::to_string(gate.Count(canary::Verdict::kRegression)) +
          " regression, " + std::to_string(gate.Count(canary::Verdict::kFail)) + " fail, " +
          std::to_string(gate.Count(canary::Verdict::kInvalid)) + " invalid, " +
          std::to_string(gate.Count(canary::Verdict::kInconclusive)) + " inconclusive, " +
          std::to_string(gate.Count(canary::Verdict::kNoBaseline)) + " without baseline");
    }
    return OkStatus();
  }

  CLI::App* ingest_ = nullptr;
  CLI::App* set_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* check_ = nullptr;
  std::vector<std::string> files_;
  std::string format_ = "auto";
  std::string target_spec_;
  std::string db_path_ = "gpufleet-state.db";
  bool from_db_ = false;
  bool force_ = false;
  bool json_ = false;
  bool allow_inconclusive_ = false;
  bool require_baseline_ = false;
  canary::GatePolicy policy_;
  std::unique_ptr<StateDb> db_;
  std::unique_ptr<SqliteBaselineStore> store_;
};

}  // namespace

std::unique_ptr<Command> NewCanaryCommand() { return std::make_unique<CanaryCommand>(); }

}  // namespace gpufleet
