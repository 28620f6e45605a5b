// gpufleet detect replay --input FILE... [--truth FILE] [--config FILE]
// [--json FILE]: the shipped detectors and incident life cycle over recorded
// series in data time (detect/replay.h), with scoring against a truth CSV.
// Vendor-exporter recordings (dcgm-exporter, AMD DME, XPU Manager names) go
// through the exporter translation first, in memory.
#include <cstdio>
#include <deque>
#include <optional>

#include "cli/command.h"
#include "core/file_util.h"
#include "detect/detect_config.h"
#include "detect/replay.h"
#include "normalize/exposition_translator.h"
#include "normalize/translate.h"

namespace gpufleet {
namespace {

class DetectCommand : public Command {
 public:
  std::string_view name() const override { return "detect"; }
  std::string_view help() const override {
    return "Detection offline. 'detect replay' runs the detectors and the incident life cycle "
           "over recorded series (OpenMetrics with timestamps, VictoriaMetrics export JSON "
           "lines, or vendor-exporter recordings) and scores them against a truth CSV.";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    replay_ = app.add_subcommand("replay", "Replay recorded series through the detectors");
    replay_->add_option("--input", inputs_, "Recording (repeatable): OpenMetrics text with "
                                            "timestamps or VictoriaMetrics /api/v1/export JSON "
                                            "lines")
        ->required();
    replay_->add_option("--truth", truth_,
                        "Truth CSV: kind,cause,node,gpu_uuid,start_s,end_s,slowdown");
    replay_->add_option("--config", config_, "Detection config TOML (default: fleet defaults)");
    replay_->add_option("--json", json_, "Also write incidents and scores as JSON here");
    replay_->add_flag("-q,--quiet", quiet_, "Print only the score table (and counts)");
  }

  Status Run() override {
    if (quiet_ && !json_.empty()) {
      return InvalidArgumentError("--json and --quiet together would drop the incidents");
    }
    detect::DetectConfig config = detect::DefaultDetectConfig();
    if (!config_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_));
      ASSIGN_OR_RETURN(config, detect::ParseDetectConfig(text, config_));
    }
    detect::ReplayReader reader;
    std::deque<std::string> translated;  // vendor recordings, kept alive for the reader
    for (const std::string& path : inputs_) {
      bool vendor = false;
      {
        // Only the head is read to tell the format; the mapping is released
        // before the reader maps the file again.
        ASSIGN_OR_RETURN(FileContents f, FileContents::Open(path));
        std::string_view head = f.view().substr(0, 256 * 1024);
        size_t first = head.find_first_not_of(" \t\r\n");
        vendor = first != std::string_view::npos && head[first] != '{' &&
                 !SniffExporter(head).empty();
        if (vendor) {
          TranslateOptions opts;
          opts.format = ExpositionFormat::kOpenMetrics;
          TranslateReport report;
          translated.emplace_back();
          RETURN_IF_ERROR(TranslateExposition(f.view(), path, opts, &translated.back(), &report));
          std::fprintf(stderr, "gpufleet detect replay: %s: translated from %s\n", path.c_str(),
                       report.source.c_str());
          reader.AddBuffer(path, translated.back());
        }
      }
      if (!vendor) RETURN_IF_ERROR(reader.AddFile(path));
    }
    ASSIGN_OR_RETURN(detect::ReplayResult result, detect::RunReplay(config, reader));
    std::optional<detect::ReplayScore> score;
    if (!truth_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(truth_));
      uint64_t bad = 0;
      std::vector<std::string> errors;
      ASSIGN_OR_RETURN(std::vector<detect::TruthRow> rows,
                       detect::ParseTruthCsv(text, truth_, &bad, &errors));
      for (const std::string& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
      if (bad > 0) {
        std::fprintf(stderr, "gpufleet detect replay: %llu truth row(s) skipped\n",
                     static_cast<unsigned long long>(bad));
      }
      score = detect::ScoreReplay(config, result, rows);
    }
    const detect::ReplayScore* s = score ? &*score : nullptr;
    if (quiet_) result.incidents.clear();
    std::string text = detect::FormatReplay(result, s);
    std::fputs(text.c_str(), stdout);
    if (!json_.empty()) {
      RETURN_IF_ERROR(WriteStringToFile(json_, detect::ReplayJson(result, s)));
    }
    return OkStatus();
  }

 private:
  CLI::App* replay_ = nullptr;
  std::vector<std::string> inputs_;
  std::string truth_;
  std::string config_;
  std::string json_;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> NewDetectCommand() { return std::make_unique<DetectCommand>(); }

}  // namespace gpufleet
