// gpufleet sim detect [--gpu-days N] [--seed S] [--write DIR]
// [--colocation FILE] [--config FILE] [-o FILE]: writes a simulated fleet
// with known ground truth and hard negatives in the replay format
// (DIR/series.om, DIR/truth.csv; a temporary folder without --write) and
// scores it through `detect replay`'s path (docs/detection.md).
// Reached through `gpufleet sim`, which hosts it as a sub-subcommand.
#include <cstdio>
#include <filesystem>
#include <random>

#include "cli/command.h"
#include "core/file_util.h"
#include "detect/detect_config.h"
#include "detect/gavel_colocation.h"
#include "detect/replay.h"
#include "detect/sim_recording.h"

namespace gpufleet {
namespace {

class SimDetectCommand : public Command {
 public:
  std::string_view name() const override { return "detect"; }
  std::string_view help() const override {
    return "Detection quality on a simulated fleet (signals from a stated contention model, "
           "slowdowns from Gavel's co-location pairs, hard negatives), scored through the "
           "replay path: precision, recall by slowdown, latency, slowdown error, false "
           "incidents per hard-negative kind";
  }
  void Configure(CLI::App& app) override {
    app.add_option("--gpu-days", gpu_days_, "GPU-days to simulate (16 GPUs)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--seed", seed_, "Simulation seed")->capture_default_str();
    app.add_option("--colocation", colocation_,
                   "Gavel's co-location table (colocation_throughputs_sf1.csv)")
        ->capture_default_str();
    app.add_option("--config", config_, "Detection config TOML (default: fleet defaults)");
    app.add_option("-o,--output", output_, "Write the Markdown report here");
    app.add_option("--write", write_dir_,
                   "Keep the fleet as DIR/series.om + DIR/truth.csv (default: a temporary "
                   "folder, removed afterwards)");
  }

  Status Run() override {
    detect::DetectConfig config = detect::DefaultDetectConfig();
    if (!config_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_));
      ASSIGN_OR_RETURN(config, detect::ParseDetectConfig(text, config_));
    }
    ASSIGN_OR_RETURN(detect::CoLocationTable table, detect::LoadGavelColocation(colocation_));
    for (const std::string& e : table.errors) std::fprintf(stderr, "%s\n", e.c_str());
    if (table.pairs.empty()) {
      return InvalidArgumentError(colocation_ + ": no feasible co-location pair");
    }
    detect::FleetSimOptions sim;
    sim.seed = seed_;
    sim.interval_ns = config.interval_ns;
    sim.duration_s = 86400 * gpu_days_ / 16;  // the simulated fleet has 16 GPUs
    sim.colocation = std::move(table.pairs);
    std::string dir = write_dir_;
    if (dir.empty()) {
      std::error_code ec;
      dir = (std::filesystem::temp_directory_path(ec) /
             ("gpufleet-sim-detect-" + std::to_string(std::random_device{}())))
                .string();
    }
    Status status = Score(config, sim, dir);
    if (write_dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
    return status;
  }

 private:
  Status Score(const detect::DetectConfig& config, const detect::FleetSimOptions& sim,
               const std::string& dir) {
    ASSIGN_OR_RETURN(detect::SimRecording rec, detect::WriteSimRecording(sim, dir));
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

  double gpu_days_ = 16;
  uint64_t seed_ = 1;
  std::string colocation_ = std::string(detect::kGavelColocationPath);
  std::string config_;
  std::string output_;
  std::string write_dir_;
};

}  // namespace

std::unique_ptr<Command> NewSimDetectCommand() { return std::make_unique<SimDetectCommand>(); }

}  // namespace gpufleet
