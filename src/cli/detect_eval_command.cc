// gpufleet sim detect [--gpu-days N] [--clean-gpu-days N] [--seed S]: runs
// the detectors on a simulated fleet with known ground truth and prints
// precision, recall and detection latency per kind (docs/detection.md).
// Reached through `gpufleet sim`, which hosts it as a sub-subcommand.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "detect/detect_config.h"
#include "detect/detect_eval.h"

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
  }

  Status Run() override {
    detect::DetectConfig config = detect::DefaultDetectConfig();
    if (!config_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_));
      ASSIGN_OR_RETURN(config, detect::ParseDetectConfig(text, config_));
    }
    ASSIGN_OR_RETURN(detect::EvalReport report, detect::RunDetectionEval(config, options_));
    const std::string text = detect::FormatEvalReport(report);
    if (!output_.empty()) return WriteStringToFile(output_, text);
    std::fputs(text.c_str(), stdout);
    return OkStatus();
  }

 private:
  detect::EvalOptions options_;
  std::string config_;
  std::string output_;
};

}  // namespace

std::unique_ptr<Command> NewSimDetectCommand() { return std::make_unique<SimDetectCommand>(); }

}  // namespace gpufleet
