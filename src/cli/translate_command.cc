// gpufleet translate FILE|URL: prints the canonical form of a vendor
// exporter's or vendor CLI's output; a summary of what was skipped goes to
// stderr.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>

#include "cli/command.h"
#include "core/file_util.h"
#include "net/http_client.h"
#include "net/url.h"
#include "normalize/translate.h"

namespace gpufleet {
namespace {

class TranslateCommand : public Command {
 public:
  std::string_view name() const override { return "translate"; }
  std::string_view help() const override {
    return "Print the canonical form of a vendor exporter's /metrics (dcgm-exporter, AMD "
           "device-metrics-exporter, Intel XPU Manager and its OpenTelemetry successor xpumd) or "
           "vendor CLI output (amd-smi, xpumcli), "
           "read from a file, an http:// URL or - (stdin).";
  }
  void Configure(CLI::App& app) override {
    app.add_option("input", input_, "File, http:// URL, or - for standard input")->required();
    app.add_option("--from", opts_.from,
                   "Input vocabulary (default: sniffed): dcgm_exporter, amd_dme, xpum, xpumd, "
                   "amd_smi_json, amd_smi_text, xpumcli")
        ->check(CLI::IsMember({"dcgm_exporter", "amd_dme", "xpum", "xpumd", "amd_smi_json",
                               "amd_smi_text", "xpumcli"}));
    app.add_option("--format", format_, "Output format: prometheus or openmetrics")
        ->check(CLI::IsMember({"prometheus", "openmetrics"}))
        ->capture_default_str();
    app.add_option("--node", opts_.node, "node label for series whose input names no host");
    app.add_option("-o,--output", output_, "Write here instead of standard output");
    app.add_flag("--strict", strict_, "Exit non-zero when any input line was skipped");
    app.add_flag("-q,--quiet", quiet_, "No summary on stderr");
  }

  Status Run() override {
    std::string fetched;
    std::optional<FileContents> file;
    std::string_view data;
    if (input_ == "-") {
      fetched.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
      data = fetched;
    } else if (input_.find("://") != std::string::npos) {
      // An exporter URL without a path means its /metrics.
      ASSIGN_OR_RETURN(HttpUrl url, ParseHttpUrl(input_, "/metrics"));
      ASSIGN_OR_RETURN(fetched, HttpGet(url.Full(), 10 * kNsPerSecond));
      data = fetched;
    } else {
      ASSIGN_OR_RETURN(FileContents contents, FileContents::Open(input_));
      file.emplace(std::move(contents));
      data = file->view();
    }
    opts_.format =
        format_ == "openmetrics" ? ExpositionFormat::kOpenMetrics : ExpositionFormat::kPrometheusText;
    std::string out;
    TranslateReport report;
    const std::string origin = input_ == "-" ? "<stdin>" : input_;
    if (output_.empty()) {
      // Standard output is written in chunks as the output is produced.
      bool write_failed = false;
      ChunkSink to_stdout = [&write_failed](std::string_view chunk) {
        if (std::fwrite(chunk.data(), 1, chunk.size(), stdout) != chunk.size()) write_failed = true;
      };
      RETURN_IF_ERROR(TranslateInput(data, origin, opts_, &out, &report, &to_stdout));
      if (write_failed || std::fflush(stdout) != 0) {
        return UnavailableError("writing standard output failed");
      }
    } else {
      // A file appears whole or not at all (written aside, then renamed).
      RETURN_IF_ERROR(TranslateInput(data, origin, opts_, &out, &report));
      RETURN_IF_ERROR(WriteStringToFile(output_, out));
    }
    if (!quiet_) std::fprintf(stderr, "%s", report.ToString().c_str());
    if (strict_ && report.partial) {
      return DataLossError(input_ + ": " + std::to_string(report.parse_errors) +
                           " input line(s) skipped (--strict)");
    }
    return OkStatus();
  }

 private:
  std::string input_;
  TranslateOptions opts_;
  std::string format_ = "prometheus";
  std::string output_;
  bool strict_ = false;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> NewTranslateCommand() { return std::make_unique<TranslateCommand>(); }

}  // namespace gpufleet
