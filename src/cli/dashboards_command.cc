// gpufleet dashboards export [-o DIR] [--config FILE]: writes gpufleet's
// Grafana dashboards (fleet overview, node, job, vendor comparison,
// contention, cost) as JSON files, generated from the metric catalog and the
// detect config whose rules `gpufleet rules export` writes.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "dashboards/dashboard_set.h"
#include "detect/detect_config.h"
#include "schema/metric_catalog.h"

namespace gpufleet {
namespace {

class DashboardsCommand : public Command {
 public:
  std::string_view name() const override { return "dashboards"; }
  std::string_view help() const override {
    return "Grafana dashboards. 'dashboards export' writes the fleet overview, node, job, "
           "vendor comparison, contention and cost dashboards (JSON, for Grafana's import or "
           "file provisioning) over the canonical metrics, the exported rules' alerts and the "
           "server's cost series (docs/dashboards.md).";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    CLI::App* exp = app.add_subcommand("export", "Write the dashboards as JSON files");
    exp->add_option("-o,--output", dir_, "Directory to write the .json files to (created)")
        ->capture_default_str();
    exp->add_option("--config", config_,
                    "Detection config TOML whose rules the contention dashboard follows, as for "
                    "'rules export' (default: the embedded fleet defaults)");
  }

  Status Run() override {
    detect::DetectConfig config = detect::DefaultDetectConfig();
    if (!config_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_));
      ASSIGN_OR_RETURN(config, detect::ParseDetectConfig(text, config_));
    }
    ASSIGN_OR_RETURN(std::vector<dashboards::GeneratedDashboard> set,
                     dashboards::BuildDashboards(MetricCatalog::Default(), config));
    ASSIGN_OR_RETURN(std::vector<std::string> paths, dashboards::WriteDashboards(set, dir_));
    for (const std::string& p : paths) std::printf("%s\n", p.c_str());
    return OkStatus();
  }

 private:
  std::string dir_ = "gpufleet-dashboards";
  std::string config_;
};

}  // namespace

std::unique_ptr<Command> NewDashboardsCommand() { return std::make_unique<DashboardsCommand>(); }

}  // namespace gpufleet
