// gpufleet rules export [--config FILE] [--cost] [-o FILE]: writes the
// detection rules (or, with --cost, the cost ledger's recording rules) as a
// Prometheus / vmalert rule group, for fleets whose alerts and charges are
// evaluated by a distributed engine instead of (or beside) gpufleet server.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "cost/cost_rules.h"
#include "detect/detect_config.h"
#include "detect/rules_export.h"

namespace gpufleet {
namespace {

class RulesCommand : public Command {
 public:
  std::string_view name() const override { return "rules"; }
  std::string_view help() const override {
    return "Detection rules for other engines. 'rules export' writes "
           "Prometheus / vmalert "
           "alerting rules equivalent to gpufleet's built-in rule detectors, or with --cost "
           "recording rules that charge GPU time like the cost ledger.";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    CLI::App* exp = app.add_subcommand("export", "Write the rule group as YAML");
    exp->add_option("--config", config_,
                    "Detection config TOML (default: the embedded fleet defaults)");
    exp->add_option("-o,--output", output_, "Write here instead of standard output");
    exp->add_flag("--cost", cost_,
                  "Write the cost ledger's recording rules instead (docs/cost.md; they need the "
                  "price series gpufleet server forwards)");
    exp->add_flag("--serving", serving_,
                  "Write recording rules that make gpu_workload_tokens_total per pod from vLLM "
                  "and SGLang token counters instead (docs/cost.md: $/Mtoken)");
    exp->add_option("--pod-label", pod_label_,
                    "With --serving: the target label holding the serving pod's name")
        ->capture_default_str();
  }

  Status Run() override {
    detect::DetectConfig config = detect::DefaultDetectConfig();
    std::string origin = "the fleet defaults (data/detect/default.toml)";
    if (!config_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_));
      ASSIGN_OR_RETURN(config, detect::ParseDetectConfig(text, config_));
      origin = config_;
    }
    if (cost_ && serving_) return InvalidArgumentError("--cost and --serving: choose one");
    std::string yaml;
    if (serving_) {
      ASSIGN_OR_RETURN(yaml, cost::ExportServingTokenRules(pod_label_));
    } else {
      yaml = cost_ ? cost::ExportCostRules() : detect::ExportPrometheusRules(config, origin);
    }
    if (output_.empty()) {
      if (std::fwrite(yaml.data(), 1, yaml.size(), stdout) != yaml.size() ||
          std::fflush(stdout) != 0) {
        return UnavailableError("writing standard output failed");
      }
      return OkStatus();
    }
    return WriteStringToFile(output_, yaml);
  }

 private:
  std::string config_;
  std::string output_;
  bool cost_ = false;
  bool serving_ = false;
  std::string pod_label_ = "pod";
};

}  // namespace

std::unique_ptr<Command> NewRulesCommand() { return std::make_unique<RulesCommand>(); }

}  // namespace gpufleet
