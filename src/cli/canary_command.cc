// gpufleet canary ingest|baseline|check|run: feeds external benchmark results
// (nccl-tests / rccl-tests, BabelStream, DCGM diag JSON, gpufleet canary JSON)
// into the state database and gates new runs against per-target baselines;
// `run` measures with the built-in microbenchmarks through the vendor
// libraries loaded at run time. Exit status of `check` (and `run --check`):
// 0 pass, 1 regression / fail / invalid (and inconclusive unless
// --allow-inconclusive), 2 bad usage.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "canary/gate.h"
#include "canary/gate_format.h"
#include "canary/ingest.h"
#include "canary/magnitude.h"
#include "canary/result_json.h"
#include "canary/run_format.h"
#include "canary/runner.h"
#include "canary/sqlite_baseline_store.h"
#include "canary/verdict_push.h"
#include "cli/command.h"
#include "core/clock.h"
#include "core/file_util.h"
#include "net/http_client.h"
#include "schema/hardware_catalog.h"

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
    return "Gate nodes and images on benchmark results: run the built-in "
           "microbenchmarks, ingest nccl-tests / rccl-tests, BabelStream and DCGM diag "
           "output, set per-target baselines, check new runs.";
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
    AddPush(check_);
    ConfigureRun(app);
  }

  Status Run() override {
    if (ingest_->parsed()) return Ingest();
    if (set_->parsed()) return SetBaseline();
    if (list_->parsed()) return List();
    if (check_->parsed()) return Check();
    if (run_->parsed()) return RunBuiltin();
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
  void AddPush(CLI::App* sub) {
    sub->add_option("--server", server_url_,
                    "Post the verdicts to this gpufleet server (a failure opens an "
                    "incident of kind canary_regression, a pass resolves it)");
    sub->add_option("--token", token_, "Admin bearer token for --server")
        ->envname("GPUFLEET_TOKEN");
    sub->add_option("--cacert", cacert_,
                    "Trust the CA certificates in this PEM file for an https --server")
        ->envname("GPUFLEET_CACERT");
    sub->add_option("--node", node_, "Node name sent with --server (default: hostname)");
  }

  void ConfigureRun(CLI::App& app) {
    run_ = app.add_subcommand(
        "run", "Run the built-in microbenchmarks (GEMM, memory, transfers, allocation, "
               "all-reduce) through the vendor libraries loaded at run time");
    run_->add_option("--vendor", vendor_, "auto, nvidia or amd")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "nvidia", "amd"}));
    run_->add_option("--library-path", library_dir_,
                     "Load libcudart/libcublas/libnccl (or the HIP/ROCm ones) from this "
                     "directory instead of the loader's search path");
    run_->add_option("--benchmarks", run_options_.groups,
                     "Comma-separated: gemm, stream, alloc, h2d, allreduce")
        ->delimiter(',')
        ->capture_default_str();
    run_->add_option("--precisions", precisions_, "GEMM precisions: bf16, fp16, fp32, fp8")
        ->delimiter(',')
        ->capture_default_str();
    run_->add_option("--reps", run_options_.repetitions, "Repetitions per benchmark")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    run_->add_option("--iters", run_options_.iters, "Timed operations per repetition")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    run_->add_option("--warmup", run_options_.warmup, "Untimed operations before timing")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    run_->add_option("--device", device_spec_,
                     "GPU index for the single-device benchmarks, or 'all' for one result per "
                     "GPU (all-reduce uses every GPU)")
        ->capture_default_str();
    run_->add_option("--gemm-size", run_options_.gemm_n, "GEMM m = n = k")
        ->capture_default_str()
        ->check(CLI::Range(16, 65536));
    run_->add_option("--stream-bytes", run_options_.stream_bytes, "Buffer size of stream.*")
        ->capture_default_str();
    run_->add_option("--transfer-bytes", run_options_.transfer_bytes,
                     "Buffer size of copy.h2d/d2h")
        ->capture_default_str();
    run_->add_option("--alloc-sizes", run_options_.alloc_bytes, "Comma-separated bytes")
        ->delimiter(',')
        ->capture_default_str();
    run_->add_option("--alloc-samples", run_options_.alloc_samples,
                     "Allocations per repetition and size")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    run_->add_option("--allreduce-sizes", run_options_.allreduce_bytes, "Comma-separated bytes")
        ->delimiter(',')
        ->capture_default_str();
    run_->add_option("--image", image_, "Container image name or digest (part of the target)");
    run_->add_option("--target", target_spec_,
                     "model=...,driver=...,runtime=...,libs=...,image=... (overrides what "
                     "the runtime reports)");
    run_->add_flag("--json", json_, "Print the results as gpufleet canary JSON");
    run_->add_option("-o,--output", output_, "Also write the results as gpufleet canary JSON");
    run_->add_option("--db", run_db_, "Store the results in this state database");
    run_->add_flag("--check", run_check_, "Gate the results against the baselines in --db");
    run_->add_flag("--allow-inconclusive", allow_inconclusive_,
                   "With --check: exit 0 when verdicts are only pass or inconclusive");
    run_->add_option("--tolerance", policy_.tolerance,
                     "With --check: regression size the gate must catch (fraction)")
        ->capture_default_str()
        ->check(CLI::Range(0.001, 0.5));
    AddPush(run_);
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
    ASSIGN_OR_RETURN(db_, StateDb::Open(db_path_, canary::CanaryMigrations()));
    store_ = std::make_unique<canary::SqliteBaselineStore>(db_.get());
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
    return Gate(results);
  }

  static std::string HostName() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
    return buf;
  }

  StatusOr<std::vector<canary::GemmPrecision>> Precisions() const {
    std::vector<canary::GemmPrecision> out;
    for (const std::string& p : precisions_) {
      if (p == "bf16") {
        out.push_back(canary::GemmPrecision::kBf16);
      } else if (p == "fp16") {
        out.push_back(canary::GemmPrecision::kFp16);
      } else if (p == "fp32") {
        out.push_back(canary::GemmPrecision::kFp32);
      } else if (p == "fp8") {
        out.push_back(canary::GemmPrecision::kFp8);
      } else {
        return InvalidArgumentError("--precisions: unknown precision '" + p +
                                    "' (expected bf16, fp16, fp32, fp8)");
      }
    }
    return out;
  }

  Status RunBuiltin() {
    if (run_check_ && run_db_.empty()) return InvalidArgumentError("--check needs --db");
    RETURN_IF_ERROR(canary::ValidateGroups(run_options_.groups));
    ASSIGN_OR_RETURN(run_options_.gemm_precisions, Precisions());
    if (device_spec_ == "all") {
      run_options_.all_devices = true;
    } else {
      char* end = nullptr;
      long d = std::strtol(device_spec_.c_str(), &end, 10);
      if (device_spec_.empty() || *end != '\0' || d < 0 || d > 4096) {
        return InvalidArgumentError("--device: expected a GPU index or 'all', got '" +
                                    device_spec_ + "'");
      }
      run_options_.device = static_cast<int>(d);
    }
    ASSIGN_OR_RETURN(run_options_.target_overrides, canary::ParseHardwareTarget(target_spec_));
    if (!image_.empty()) run_options_.target_overrides.image = image_;
    StatusOr<std::unique_ptr<canary::GpuRuntime>> rt =
        vendor_ == "auto"
            ? canary::LoadGpuRuntimeAuto(library_dir_)
            : canary::LoadGpuRuntime({vendor_ == "amd" ? canary::GpuVendor::kAmd
                                                       : canary::GpuVendor::kNvidia,
                                      library_dir_});
    if (!rt.ok()) return rt.status();
    ASSIGN_OR_RETURN(canary::RunReport report, canary::RunBenchmarks(**rt, run_options_));
    // Magnitude sanity: a figure above the hardware peak or 1000x below it is
    // a bug in the measurement, not a result.
    size_t implausible = 0;
    for (const canary::BenchmarkResult& r : report.results) {
      std::optional<canary::PeakBound> bound = canary::PeakFor(
          HardwareCatalog::Default(), r.target.model, r.benchmark_id, r.unit);
      if (!bound) continue;
      for (double v : r.values) {
        if (Status st = canary::CheckMagnitude(*bound, v); !st.ok()) {
          std::fprintf(stderr, "implausible %s: %s\n", r.benchmark_id.c_str(),
                       st.message().c_str());
          ++implausible;
          break;
        }
      }
    }
    std::string json = canary::FormatResultsJson(report.target, report.results, report.skipped);
    if (!output_.empty()) RETURN_IF_ERROR(WriteStringToFile(output_, json));
    std::string out = json_ ? json : canary::FormatRunTable(report);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    if (report.results.empty()) {
      return UnavailableError("no benchmark ran (" + std::to_string(report.skipped.size()) +
                              " skipped)");
    }
    if (!run_db_.empty()) {
      db_path_ = run_db_;
      RETURN_IF_ERROR(OpenStore());
      int64_t now = RealClock::Get().NowNs();
      for (const canary::BenchmarkResult& r : report.results) {
        RETURN_IF_ERROR(store_->AddResult(r, now));
      }
      std::fprintf(stderr, "stored %zu result(s) in %s\n", report.results.size(),
                   run_db_.c_str());
    }
    if (run_check_) return Gate(report.results);
    if (implausible > 0) {
      return FailedPreconditionError(std::to_string(implausible) +
                                     " figure(s) failed the hardware-peak sanity check");
    }
    return OkStatus();
  }

  // Gates `results` against the open store, prints the verdicts, pushes them
  // to --server.
  Status Gate(const std::vector<canary::BenchmarkResult>& results) {
    ASSIGN_OR_RETURN(canary::GateReport gate,
                     canary::RunGate(results, *store_, policy_, &HardwareCatalog::Default()));
    canary::ExitPolicy exit_policy;
    exit_policy.fail_on_inconclusive = !allow_inconclusive_;
    exit_policy.fail_on_no_baseline = require_baseline_;
    bool failed = canary::GateFailed(gate, exit_policy);
    std::string gate_json = canary::FormatGateJson(gate, failed);
    if (run_->parsed()) {
      // The run's own output went to stdout; the verdicts follow it (on
      // stderr when stdout carries JSON).
      std::string table = canary::FormatGateTable(gate);
      std::fwrite(table.data(), 1, table.size(), json_ ? stderr : stdout);
    } else {
      std::string out = json_ ? gate_json : canary::FormatGateTable(gate);
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
    std::fflush(stdout);
    // Passes are pushed too: a "pass" resolves the server's open incident.
    if (!server_url_.empty() && !gate.checks.empty()) {
      bool failing = gate.Count(canary::Verdict::kRegression) > 0 ||
                     gate.Count(canary::Verdict::kFail) > 0;
      ASSIGN_OR_RETURN(std::string reply,
                       canary::PushVerdicts(*NewHttpClient({.ca_file = cacert_}), server_url_,
                                            token_, node_.empty() ? HostName() : node_, gate_json));
      std::fprintf(stderr, "pushed %sverdicts to %s: %s", failing ? "failing " : "",
                   server_url_.c_str(), reply.c_str());
    }
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
  CLI::App* run_ = nullptr;
  canary::RunOptions run_options_;
  std::vector<std::string> precisions_ = {"bf16", "fp16", "fp32", "fp8"};
  std::string vendor_ = "auto";
  std::string device_spec_ = "0";  // index or "all"
  std::string library_dir_;
  std::string image_;
  std::string output_;
  std::string run_db_;
  bool run_check_ = false;
  std::string server_url_;
  std::string token_;
  std::string cacert_;
  std::string node_;
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
  std::unique_ptr<canary::SqliteBaselineStore> store_;
};

}  // namespace

std::unique_ptr<Command> NewCanaryCommand() { return std::make_unique<CanaryCommand>(); }

}  // namespace gpufleet
