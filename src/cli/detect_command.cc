// gpufleet detect replay --input FILE... [--truth FILE] [--config FILE]
// [--json FILE]: the shipped detectors and incident life cycle over recorded
// series in data time (detect/replay.h), with scoring against a truth CSV.
// Vendor-exporter recordings (dcgm-exporter, AMD DME, XPU Manager, xpumd
// names), in any of the three forms, go through the exporter translation
// first, in memory.
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
           "lines or promtool tsdb dump output, of canonical or vendor-exporter names) and scores "
           "them against a truth CSV.";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    replay_ = app.add_subcommand("replay", "Replay recorded series through the detectors");
    replay_
        ->add_option("--input", inputs_,
                     "Recording (repeatable): OpenMetrics text with timestamps, "
                     "VictoriaMetrics /api/v1/export JSON lines or `promtool tsdb dump` "
                     "output, of canonical metrics or of a vendor exporter's (translated "
                     "first)")
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
        // VictoriaMetrics export lines ({"metric":...}) or `promtool tsdb dump`
        // lines ({__name__="m", ...} v ms): read by the replay reader and
        // written as text for the translation, which wants a name in front.
        const detect::RecordingForm recording = detect::FormOf(head);
        const bool braced = recording != detect::RecordingForm::kText;
        const char* form = recording == detect::RecordingForm::kExportLines
                               ? "VictoriaMetrics export lines"
                               : "promtool tsdb dump lines";
        std::string source;
        if (braced) {
          // The first few whole lines, as text (an export line holds a whole
          // series, so it may be long).
          std::string_view lines = f.view();
          size_t end = 0;
          for (int n = 0; n < 64 && end < lines.size(); ++n) {
            const size_t nl = lines.find('\n', end);
            end = nl == std::string_view::npos ? lines.size() : nl + 1;
          }
          detect::ReplayReader peek;
          peek.AddBuffer(path, lines.substr(0, end));
          source = SniffExporter(detect::SamplesAsText(peek));
        } else {
          source = SniffExporter(head);
        }
        vendor = !source.empty();
        if (vendor) {
          std::string text;
          std::string_view input = f.view();
          if (braced) {
            detect::ReplayReader all;
            all.AddBuffer(path, f.view());
            uint64_t skipped = 0;
            text = detect::SamplesAsText(all, &skipped);
            input = text;
            for (const std::string& e : all.stats().errors) std::fprintf(stderr, "%s\n", e.c_str());
            if (all.stats().malformed > 0 || skipped > 0) {
              std::fprintf(stderr,
                           "gpufleet detect replay: %s: %llu export line(s) malformed, %llu "
                           "sample(s) of series whose names are not Prometheus names skipped\n",
                           path.c_str(), static_cast<unsigned long long>(all.stats().malformed),
                           static_cast<unsigned long long>(skipped));
            }
          }
          TranslateOptions opts;
          opts.format = ExpositionFormat::kOpenMetrics;
          TranslateReport report;
          translated.emplace_back();
          RETURN_IF_ERROR(TranslateExposition(input, path, opts, &translated.back(), &report));
          std::fprintf(stderr, "gpufleet detect replay: %s: translated from %s%s%s%s\n",
                       path.c_str(), report.source.c_str(), braced ? " (" : "", braced ? form : "",
                       braced ? ")" : "");
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
