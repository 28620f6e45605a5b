// gpufleet sim detect [--gpu-days N] [--clean-gpu-days N] [--seed S]
// [--write DIR]: runs the detectors on a simulated fleet with known ground
// truth and prints precision, recall and detection latency per kind
// (docs/detection.md). With --write, the fleet is written in the replay
// format (DIR/series.om, DIR/truth.csv) and scored through `detect replay`'s
// path instead.
// Reached through `gpufleet sim`, which hosts it as a sub-subcommand.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "detect/detect_config.h"
#include "detect/detect_eval.h"
#include "detect/replay.h"
#include "detect/sim_recording.h"

namespace gpufleet {
namespace {

class SimDetectCommand : public Command {
 public:
  std::string_view name() const override { return "detect"; }
  std::string_view help() const override {
    return "Detection quality on a simulated fleet with injected episodes: "
           "precision, recall "
           "and latency per kind, false incidents per 100 GPU-days on clean "
           "scenarios";
  }
  void Configure(CLI::App& app) override {
    app.add_option("--gpu-days", options_.gpu_days, "GPU-days with injected episodes")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--clean-gpu-days", options_.clean_gpu_days,
                   "GPU-days of the clean scenario (0 = skip)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--seed", options_.seed, "Simulation seed")->capture_default_str();
    app.add_option("--config", config_, "Detection config TOML (default: fleet defaults)");
    app.add_option("-o,--output", output_, "Write the Markdown report here");
    app.add_option("--write", write_dir_,
                   "Write the fleet with injected episodes as DIR/series.om + DIR/truth.csv "
                   "and score it through the replay path (detect replay)");
  }

  Status Run() override {
    detect::DetectConfig config = detect::DefaultDetectConfig();
    if (!config_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_));
      ASSIGN_OR_RETURN(config, detect::ParseDetectConfig(text, config_));
    }
    if (!write_dir_.empty()) return RunThroughReplay(config);
    ASSIGN_OR_RETURN(detect::EvalReport report, detect::RunDetectionEval(config, options_));
    const std::string text = detect::FormatEvalReport(report);
    if (!output_.empty()) return WriteStringToFile(output_, text);
    std::fputs(text.c_str(), stdout);
    return OkStatus();
  }

 private:
  Status RunThroughReplay(const detect::DetectConfig& config) {
    detect::FleetSimOptions sim;
    sim.seed = options_.seed;
    sim.duration_s = 86400 * options_.gpu_days / 16;  // the simulated fleet has 16 GPUs
    ASSIGN_OR_RETURN(detect::SimRecording rec, detect::WriteSimRecording(sim, write_dir_));
    std::fprintf(stderr, "gpufleet sim detect: wrote %s (%llu samples) and %s (%d rows)\n",
                 rec.series_path.c_str(), static_cast<unsigned long long>(rec.samples),
                 rec.truth_path.c_str(), rec.truth_rows);
    detect::ReplayReader reader;
    RETURN_IF_ERROR(reader.AddFile(rec.series_path));
    ASSIGN_OR_RETURN(detect::ReplayResult result, detect::RunReplay(config, reader));
    ASSIGN_OR_RETURN(std::string truth_text, ReadFileToString(rec.truth_path));
    uint64_t bad = 0;
    std::vector<std::string> errors;
    ASSIGN_OR_RETURN(std::vector<detect::TruthRow> rows,
                     detect::ParseTruthCsv(truth_text, rec.truth_path, &bad, &errors));
    detect::ReplayScore score = detect::ScoreReplay(config, result, rows);
    result.incidents.clear();  // the table is the point; detect replay lists them
    const std::string text = detect::FormatReplay(result, &score);
    if (!output_.empty()) return WriteStringToFile(output_, text);
    std::fputs(text.c_str(), stdout);
    return OkStatus();
  }

  detect::EvalOptions options_;
  std::string write_dir_;
  std::string config_;
  std::string output_;
};

}  // namespace

std::unique_ptr<Command> NewSimDetectCommand() { return std::make_unique<SimDetectCommand>(); }

}  // namespace gpufleet
