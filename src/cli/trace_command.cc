// gpufleet trace analyze|diff|merge|hang: loads profiler traces and
// communication logs onto one clock-aligned timeline and reports on them.
// Progress goes to stderr (a bar when stderr is a terminal and the input is
// large); reports go to stdout or -o.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/file_util.h"
#include "trace/analysis.h"
#include "trace/hang.h"
#include "trace/perfetto_writer.h"
#include "trace/report_writer.h"
#include "trace/trace_diff.h"
#include "trace/trace_loader.h"

namespace gpufleet {
namespace {

constexpr uint64_t kProgressMinBytes = 50ull << 20;

// Estimated decompressed input size (gzip traces inflate roughly 10x).
uint64_t EstimatedInputBytes(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const std::string& p : paths) {
    std::error_code ec;
    uint64_t size = std::filesystem::file_size(p, ec);
    if (ec) continue;
    bool gz = p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0;
    total += gz ? size * 10 : size;
  }
  return total;
}

uint64_t DiskBytes(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const std::string& p : paths) {
    std::error_code ec;
    uint64_t size = std::filesystem::file_size(p, ec);
    if (!ec) total += size;
  }
  return total;
}

// A one-line bar on stderr, redrawn at most once per percent.
class StderrProgress : public trace::ImportProgress {
 public:
  void Advance(uint64_t done, uint64_t total) override {
    if (total == 0) return;
    int pct = static_cast<int>(done * 100 / total);
    if (pct == last_pct_ && done != total) return;
    last_pct_ = pct;
    constexpr int kWidth = 30;
    int filled = pct * kWidth / 100;
    std::fprintf(stderr, "\rimporting [%.*s%*s] %3d%% of %.1f MB", filled,
                 "==============================", kWidth - filled, "", pct,
                 static_cast<double>(total) / 1e6);
    if (done == total) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  int last_pct_ = -1;
};

Status WriteOutput(const std::string& out_path, const std::string& text) {
  if (out_path.empty() || out_path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return OkStatus();
  }
  return WriteStringToFile(out_path, text);
}

void ReportFiles(const trace::Timeline& t) {
  for (const trace::SourceFile& f : t.files) {
    if (f.partial || f.skipped > 0) {
      std::fprintf(stderr, "%s: %s%llu record(s) skipped\n", f.path.c_str(),
                   f.partial ? "PARTIAL, " : "", static_cast<unsigned long long>(f.skipped));
      for (const std::string& e : f.errors) std::fprintf(stderr, "  %s\n", e.c_str());
    }
  }
  if (t.files.size() > 1) {
    std::string a = trace::FormatAlignment(t);
    std::fprintf(stderr, "clock alignment:\n%s", a.c_str());
  }
}

class TraceCommand : public Command {
 public:
  std::string_view name() const override { return "trace"; }
  std::string_view help() const override {
    return "Analyze, compare, merge and diagnose GPU traces (Kineto JSON, Nsight Systems SQLite, "
           "rocprofv3, NCCL/RCCL logs, flight recorder) on one clock-aligned timeline.";
  }

  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    analyze_ = app.add_subcommand("analyze", "Load traces and report breakdowns, idle time, "
                                             "kernels, launch delays, overlap and stragglers");
    analyze_->add_option("files", files_, "Trace files (plain or .gz)")->required();
    analyze_->add_option("--format", format_, "text, md, json or html")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json", "html"}));
    analyze_->add_option("-o,--output", out_, "Write the report here instead of stdout");
    analyze_->add_flag("--import-only", import_only_,
                       "Only load and align (prints sizes, events and throughput)");
    AddLoadFlags(analyze_);

    diff_ = app.add_subcommand("diff", "Compare a baseline trace with a contended one");
    diff_->add_option("base", base_, "Baseline trace")->required();
    diff_->add_option("contended", contended_, "Contended trace")->required();
    diff_->add_option("--format", format_, "text, md or json")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json"}));
    diff_->add_option("-o,--output", out_, "Write the report here instead of stdout");
    AddLoadFlags(diff_);

    merge_ = app.add_subcommand("merge", "Write one Perfetto-loadable JSON trace of all inputs, "
                                         "clock offsets applied");
    merge_->add_option("files", files_, "Trace files")->required();
    merge_->add_option("-o,--output", out_, "Merged Chrome JSON trace")->required();
    merge_->add_flag("--no-flows", no_flows_, "Omit launch -> kernel flow arrows");
    AddLoadFlags(merge_);

    hang_ = app.add_subcommand("hang", "Find the stuck collective and the ranks it waits for in "
                                       "NCCL/RCCL logs and flight-recorder dumps");
    hang_->add_option("logs", files_,
                      "NCCL/RCCL NCCL_DEBUG=INFO logs of any NCCL 2.x / RCCL version (one or "
                      "several ranks per file, mpirun/torchrun/pdsh prefixes, PyTorch watchdog "
                      "lines), NCCL RAS text/JSON, Inspector JSONL, flight-recorder JSON dumps")
        ->required();
    hang_->add_flag("--json", json_, "JSON output");
  }

  Status Run() override {
    if (analyze_->parsed()) return Analyze();
    if (diff_->parsed()) return Diff();
    if (merge_->parsed()) return Merge();
    if (hang_->parsed()) return Hang();
    return InvalidArgumentError("trace: expected analyze, diff, merge or hang");
  }

 private:
  void AddLoadFlags(CLI::App* sub) {
    sub->add_flag("--no-align", no_align_, "Keep each file's own clock (no collective alignment)");
    sub->add_flag("--no-progress", no_progress_, "Never draw a progress bar");
  }

  StatusOr<trace::Timeline> Load(const std::vector<std::string>& paths) {
    trace::LoadOptions options;
    options.align = !no_align_;
    StderrProgress bar;
    bool show = !no_progress_ && ::isatty(2) && EstimatedInputBytes(paths) > kProgressMinBytes;
    StatusOr<trace::Timeline> t = trace::LoadTraces(paths, options, show ? &bar : nullptr);
    if (t.ok()) ReportFiles(*t);
    return t;
  }

  Status Analyze() {
    auto start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(trace::Timeline t, Load(files_));
    if (import_only_) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      uint64_t bytes = DiskBytes(files_);
      std::printf("files %zu\nbytes %llu\nevents %zu\nprocesses %zu\ntracks %zu\n"
                  "collectives %zu\nstrings %zu\nseconds %.3f\nmb_per_s %.1f\n"
                  "events_per_s %.0f\npartial %s\n",
                  t.files.size(), static_cast<unsigned long long>(bytes), t.events.size(),
                  t.processes.size(), t.tracks.size(), t.collectives.size(), t.strings.size(),
                  secs, static_cast<double>(bytes) / 1e6 / secs,
                  static_cast<double>(t.events.size()) / secs, t.partial() ? "yes" : "no");
      return OkStatus();
    }
    trace::AnalysisReport report = trace::Analyze(t, trace::AnalysisOptions{});
    std::string text;
    if (format_ == "md") {
      text = trace::ReportMarkdown(t, report);
    } else if (format_ == "json") {
      text = trace::ReportJson(t, report);
    } else if (format_ == "html") {
      text = trace::ReportHtml(t, report);
    } else {
      text = trace::FormatSummary(t, report);
    }
    return WriteOutput(out_, text);
  }

  Status Diff() {
    ASSIGN_OR_RETURN(trace::Timeline base, Load({base_}));
    ASSIGN_OR_RETURN(trace::Timeline contended, Load({contended_}));
    trace::TraceDiffReport diff =
        trace::DiffTraces(base, contended, trace::AnalysisOptions{});
    std::string text = format_ == "json" ? trace::DiffJson(diff)
                       : format_ == "md" ? trace::DiffMarkdown(diff)
                                         : trace::FormatDiffText(diff);
    return WriteOutput(out_, text);
  }

  Status Merge() {
    ASSIGN_OR_RETURN(trace::Timeline t, Load(files_));
    trace::PerfettoOptions options;
    options.flows = !no_flows_;
    RETURN_IF_ERROR(trace::WritePerfettoJson(t, out_, options));
    std::fprintf(stderr, "wrote %s: %zu events from %zu file(s)%s\n", out_.c_str(),
                 t.events.size(), t.files.size(), t.partial() ? " (some inputs partial)" : "");
    return OkStatus();
  }

  Status Hang() {
    ASSIGN_OR_RETURN(trace::HangReport report, trace::AnalyzeHang(files_));
    std::string text = json_ ? trace::HangReportJson(report) : trace::FormatHangText(report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return OkStatus();
  }

  CLI::App* analyze_ = nullptr;
  CLI::App* diff_ = nullptr;
  CLI::App* merge_ = nullptr;
  CLI::App* hang_ = nullptr;
  std::vector<std::string> files_;
  std::string base_, contended_, out_;
  std::string format_ = "text";
  bool import_only_ = false;
  bool no_align_ = false;
  bool no_progress_ = false;
  bool no_flows_ = false;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> NewTraceCommand() { return std::make_unique<TraceCommand>(); }

}  // namespace gpufleet
