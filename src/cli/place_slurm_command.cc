// gpufleet place slurm: the Slurm side of placement.
//   place slurm conf --inventory FILE [-o DIR]      slurm.conf / gres.conf fragments
//   place slurm args --inventory FILE --request FILE [--policy P] [--format F]
//                                                   sbatch arguments for the chosen node
// Hosted by `gpufleet place` (place_command.cc) the way `sim` hosts `sim detect`.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/strings.h"
#include "place/compat_hook.h"
#include "place/placement_report.h"
#include "place/slurm_adapter.h"
#include "place/spec_file.h"

namespace gpufleet {
namespace {

// POSIX shell quoting: plain words stay bare, everything else in '...'.
std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',';
    if (!ok) plain = false;
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

class PlaceSlurmCommand : public Command {
 public:
  std::string_view name() const override { return "slurm"; }
  std::string_view help() const override {
    return "Slurm adapter: 'conf' writes slurm.conf/gres.conf fragments for an inventory, "
           "'args' prints the sbatch arguments that put a request where the policy chose.";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    conf_ = app.add_subcommand("conf", "slurm.conf NodeName lines (GresTypes, Gres, CPUs, "
                                       "RealMemory, Features) and gres.conf lines");
    conf_->add_option("--inventory", inventory_, "Inventory TOML")->required();
    conf_->add_option("-o,--output-dir", out_dir_,
                      "Write slurm-nodes.conf and gres.conf here (default: both to stdout)");
    conf_->add_option("--fake-devices", fake_dir_,
                      "GRES File= paths <DIR>/<node>-gpu<i> instead of /dev (test clusters: "
                      "make them symlinks to /dev/null)");
    conf_->add_flag("--count-only", count_only_, "GRES as Count= without File=");
    conf_->add_option("--single-host", single_host_,
                      "ADDR:PORT: all nodes' slurmd on one host, node i on PORT+i (test and "
                      "demo clusters; start each with slurmd -N NAME)");

    args_ = app.add_subcommand("args", "sbatch/srun arguments for a request, pinned to the "
                                       "node the policy chose");
    args_->add_option("--inventory", inventory_, "Inventory TOML")->required();
    args_->add_option("--request", request_, "Workload request TOML")->required();
    args_->add_option("--policy", policy_, "Placement policy (as for 'gpufleet place')")
        ->capture_default_str();
    args_->add_option("--format", format_,
                      "lines: one argument per line; shell: one quoted line; json")
        ->check(CLI::IsMember({"lines", "shell", "json"}))
        ->capture_default_str();
  }

  Status Run() override {
    if (conf_->parsed()) return RunConf();
    return RunArgs();
  }

 private:
  Status RunConf() {
    ASSIGN_OR_RETURN(place::Inventory inv, place::LoadInventoryFile(inventory_));
    place::SlurmConfOptions opts;
    opts.fake_device_dir = fake_dir_;
    opts.count_only = count_only_;
    if (!single_host_.empty()) {
      size_t colon = single_host_.rfind(':');
      std::optional<int64_t> port;
      if (colon != std::string::npos) port = ParseInt64(single_host_.substr(colon + 1));
      if (colon == std::string::npos || colon == 0 || !port || *port <= 0 || *port > 65535) {
        return InvalidArgumentError("--single-host: want ADDR:PORT, got \"" + single_host_ +
                                    "\"");
      }
      opts.single_host_addr = single_host_.substr(0, colon);
      opts.first_slurmd_port = static_cast<int>(*port);
    }
    ASSIGN_OR_RETURN(place::SlurmConf conf, place::MakeSlurmConf(inv.nodes, opts));
    for (const std::string& n : conf.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    if (out_dir_.empty()) {
      std::printf("# ---- slurm.conf (include in or append to slurm.conf) ----\n%s"
                  "# ---- gres.conf ----\n%s",
                  conf.slurm_conf.c_str(), conf.gres_conf.c_str());
      return OkStatus();
    }
    std::error_code ec;
    std::filesystem::create_directories(out_dir_, ec);
    if (ec) return InvalidArgumentError(out_dir_ + ": " + ec.message());
    RETURN_IF_ERROR(WriteStringToFile(out_dir_ + "/slurm-nodes.conf", conf.slurm_conf));
    RETURN_IF_ERROR(WriteStringToFile(out_dir_ + "/gres.conf", conf.gres_conf));
    return OkStatus();
  }

  Status RunArgs() {
    ASSIGN_OR_RETURN(place::Inventory inv, place::LoadInventoryFile(inventory_));
    ASSIGN_OR_RETURN(place::WorkloadRequest req, place::LoadRequestFile(request_));
    ASSIGN_OR_RETURN(auto policy, place::MakePlacementPolicy(policy_));
    place::Cluster cluster = place::MakeCluster(inv);
    // The same decision `gpufleet place` prints, with the same compat rules.
    place::PlacementReport report =
        place::ExplainPlacement(cluster, req, *policy, place::CatalogCompatHook());
    if (!report.chosen) {
      std::string why;
      for (const place::Rejection& r : report.rejections) {
        why += "\n  " + cluster.spec(r.node).name + ": " +
               std::string(place::RejectReasonName(r.reason)) + ": " + r.detail;
      }
      return FailedPreconditionError("no node can host request \"" + req.name + "\"" + why);
    }
    ASSIGN_OR_RETURN(place::SlurmJobArgs args,
                     place::MakeSlurmJobArgs(cluster.spec(report.chosen->node), req));
    if (format_ == "json") {
      nlohmann::json j = {{"request", req.name}, {"policy", policy_},
                          {"node", args.node},   {"args", args.args},
                          {"notes", args.notes}};
      std::printf("%s\n", j.dump(2).c_str());
      return OkStatus();
    }
    for (const std::string& n : args.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    if (format_ == "shell") {
      std::string line;
      for (const std::string& a : args.args) line += (line.empty() ? "" : " ") + ShellQuote(a);
      std::printf("%s\n", line.c_str());
    } else {
      for (const std::string& a : args.args) std::printf("%s\n", a.c_str());
    }
    return OkStatus();
  }

  CLI::App* conf_ = nullptr;
  CLI::App* args_ = nullptr;
  std::string inventory_, request_, out_dir_, fake_dir_, single_host_;
  std::string policy_ = "gpufleet";
  std::string format_ = "lines";
  bool count_only_ = false;
};

}  // namespace

std::unique_ptr<Command> NewPlaceSlurmCommand() { return std::make_unique<PlaceSlurmCommand>(); }

}  // namespace gpufleet
