// gpufleet place: one placement decision, explained.
//   place --inventory FILE --request FILE [--policy P] [--json] [--alternatives N]
//         [--objective O [--deadline-hours H]] [--throughputs FILE] [--prices FILE]
//       the chosen node and GPUs, the runners-up, and every rejected node's
//       reason; with an objective (here or in the request), each candidate GPU
//       type / cloud with its duration, $/job, $/effective TFLOP and
//       co-location penalty (place/objective_choice.h); exit 0 placed, 1
//       nothing fits, 2 bad input
//   place extender --inventory FILE --listen HOST:PORT [--policy P]
//       Kubernetes scheduler extender (POST <prefix>/filter, <prefix>/prioritize)
//   place slurm conf|args ...   (place_slurm_command.cc)
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>


#include "cli/command.h"
#include "core/file_util.h"
#include "core/strings.h"
#include "net/http_server.h"
#include "net/url.h"
#include "place/compat_hook.h"
#include "place/k8s_extender.h"
#include "place/placement_report.h"
#include "place/objective_choice.h"
#include "place/spec_file.h"
#include "server/place_prices.h"

namespace gpufleet {
namespace {

// An unreadable or malformed input file is bad input (exit 2).
template <typename T>
StatusOr<T> AsBadInput(StatusOr<T> r) {
  if (r.ok() || r.status().code() == StatusCode::kInvalidArgument) return r;
  return InvalidArgumentError(r.status().message());
}

// The extender's inventory, reloaded when the file changes (an external
// process keeps its free capacity current).
class InventoryFile {
 public:
  explicit InventoryFile(std::string path) : path_(std::move(path)) {}

  Status Load() {
    std::lock_guard<std::mutex> lock(mu_);
    return ReloadLocked();
  }
  // A snapshot; a failed reload keeps the last good inventory.
  place::Inventory Get() {
    std::lock_guard<std::mutex> lock(mu_);
    std::error_code ec;
    auto mtime = std::filesystem::last_write_time(path_, ec);
    if (!ec && mtime != mtime_) {
      Status s = ReloadLocked();
      if (!s.ok()) {
        std::fprintf(stderr, "gpufleet place extender: keeping the last inventory: %s\n",
                     s.ToString().c_str());
        mtime_ = mtime;  // report once per change
      }
    }
    return inventory_;
  }

 private:
  Status ReloadLocked() {
    std::error_code ec;
    auto mtime = std::filesystem::last_write_time(path_, ec);
    ASSIGN_OR_RETURN(place::Inventory inv, AsBadInput(place::LoadInventoryFile(path_)));
    inventory_ = std::move(inv);
    mtime_ = mtime;
    return OkStatus();
  }

  const std::string path_;
  std::mutex mu_;
  place::Inventory inventory_;                  // guarded by mu_
  std::filesystem::file_time_type mtime_{};     // guarded by mu_
};

class PlaceCommand : public Command {
 public:
  std::string_view name() const override { return "place"; }
  std::string_view help() const override {
    return "Place one workload request on an inventory and explain the choice; "
           "'place extender' serves the Kubernetes scheduler extender, 'place slurm' the "
           "Slurm adapter (see docs/placement.md).";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(0, 1);
    app.add_option("--inventory", inventory_, "Inventory TOML (data/place/inventory.toml)");
    app.add_option("--request", request_, "Workload request TOML (data/place/request-*.toml)");
    app.add_option("--policy", policy_,
                   "random, dotprod, gpuclustering, gpupacking, bestfit, fgd, gpufleet, or "
                   "weighted 'fgd:0.7,bestfit:0.3'")
        ->capture_default_str();
    app.add_flag("--json", json_, "Print the decision as JSON");
    app.add_option("--alternatives", alternatives_, "How many runners-up to list")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    app.add_option("--objective", objective_,
                   "fastest, cheapest-per-job or cheapest-meeting-deadline (replaces the "
                   "request's; the request must name job_type and steps)");
    app.add_option("--deadline-hours", deadline_hours_,
                   "With cheapest-meeting-deadline: the deadline (replaces the request's)")
        ->check(CLI::PositiveNumber);
    app.add_option("--throughputs", throughputs_,
                   "Gavel's simulation_throughputs.json, the throughput and co-location data "
                   "objectives use")
        ->capture_default_str();
    app.add_option("--prices", prices_,
                   "Price book TOML (docs/cost.md); default: the embedded public cloud catalog");

    extender_ = app.add_subcommand(
        "extender", "Kubernetes scheduler extender: POST <prefix>/filter and <prefix>/prioritize");
    extender_->add_option("--inventory", ext_inventory_, "Inventory TOML (reloaded when it changes)")
        ->required();
    extender_
        ->add_option("--listen", ext_listen_,
                     "HOST:PORT, :PORT (all interfaces) or PORT (loopback); PORT 0 = any free")
        ->capture_default_str();
    extender_->add_option("--policy", ext_policy_, "Policy scoring the prioritize verb")
        ->capture_default_str();

    slurm_ = app.add_subcommand(std::string(place_slurm_->name()),
                                std::string(place_slurm_->help()));
    place_slurm_->Configure(*slurm_);
  }

  Status Run() override {
    if (slurm_->parsed()) return place_slurm_->Run();
    if (extender_->parsed()) return RunExtender();
    if (inventory_.empty() || request_.empty()) {
      return InvalidArgumentError(
          "place needs --inventory and --request (or a subcommand: extender, slurm)");
    }
    ASSIGN_OR_RETURN(place::Inventory inv, AsBadInput(place::LoadInventoryFile(inventory_)));
    ASSIGN_OR_RETURN(place::WorkloadRequest req, AsBadInput(place::LoadRequestFile(request_)));
    if (!objective_.empty()) req.objective = objective_;
    if (deadline_hours_ > 0) req.deadline_hours = deadline_hours_;
    ASSIGN_OR_RETURN(auto policy, AsBadInput(place::MakePlacementPolicy(policy_)));
    place::Cluster cluster = place::MakeCluster(inv);
    place::PlacementReport report =
        place::ExplainPlacement(cluster, req, *policy, place::CatalogCompatHook());
    std::optional<place::ObjectiveDecision> decision;
    if (!req.objective.empty()) {
      if (req.job_type.empty() || req.steps <= 0) {
        return InvalidArgumentError(request_ + ": an objective needs job_type and steps");
      }
      if (req.objective == "cheapest-meeting-deadline" && req.deadline_hours <= 0) {
        return InvalidArgumentError(request_ +
                                    ": cheapest-meeting-deadline needs deadline_hours (or "
                                    "--deadline-hours)");
      }
      ASSIGN_OR_RETURN(place::GavelThroughputs table,
                       AsBadInput(place::LoadGavelThroughputs(throughputs_)));
      auto book = std::make_shared<const cost::PriceBook>();
      if (!prices_.empty()) {
        ASSIGN_OR_RETURN(cost::PriceBook b, AsBadInput(cost::PriceBook::Load(prices_)));
        book = std::make_shared<const cost::PriceBook>(std::move(b));
      }
      StatusOr<place::ObjectiveDecision> d =
          place::PlaceByObjective(cluster, req, table, PriceBookLookup(book), *policy, report);
      if (!d.ok()) return InvalidArgumentError(request_ + ": " + d.status().message());
      decision = std::move(*d);
    }
    std::string out =
        json_ ? place::PlacementReportJson(cluster, req, policy_, report, alternatives_)
              : place::PlacementReportText(cluster, req, policy_, report, alternatives_);
    if (decision.has_value()) {
      out = json_ ? place::PlacementJsonWithObjective(out, *decision)
                  : out + place::ObjectiveDecisionText(*decision);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    if (decision.has_value() && decision->chosen < 0 && !report.feasible.empty()) {
      return FailedPreconditionError("request '" + req.name + "': " + decision->reason);
    }
    if (!report.chosen) {
      return FailedPreconditionError("no node fits request '" + req.name + "' (" +
                                     std::to_string(report.rejections.size()) + " rejected)");
    }
    return OkStatus();
  }

 private:
  Status RunExtender() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    ASSIGN_OR_RETURN(ListenAddress listen, ParseListenAddress(ext_listen_));
    ASSIGN_OR_RETURN(auto policy, AsBadInput(place::MakePlacementPolicy(ext_policy_)));
    (void)policy;  // checked here; each request makes its own
    InventoryFile inventory(ext_inventory_);
    RETURN_IF_ERROR(inventory.Load());
    place::SoftwareCompatHook compat = place::CatalogCompatHook();

    HttpServer server;
    server.SetMaxBodyBytes(64 << 20);
    // kube-scheduler POSTs to urlPrefix + "/" + verb: any prefix is accepted.
    server.Post(R"(.*/filter)", [&](const HttpServerRequest& req, HttpServerResponse& res) {
      place::ExtenderReply r = place::ExtenderFilter(inventory.Get(), compat, req.body());
      res.set_status(r.http_status);
      res.set_content(r.body, "application/json");
    });
    server.Post(R"(.*/prioritize)", [&](const HttpServerRequest& req, HttpServerResponse& res) {
      place::ExtenderReply r =
          place::ExtenderPrioritize(inventory.Get(), ext_policy_, compat, req.body());
      res.set_status(r.http_status);
      res.set_content(r.body, "application/json");
    });
    server.Get("/-/healthy", [](const HttpServerRequest&, HttpServerResponse& res) {
      res.set_content("gpufleet place extender is healthy.\n", "text/plain");
    });
    ASSIGN_OR_RETURN(int port, server.Start(listen.host, listen.port));
    std::fprintf(stderr,
                 "gpufleet place extender: listening on %s:%d (inventory %s, policy %s); "
                 "Ctrl-C stops\n",
                 listen.host.c_str(), port, ext_inventory_.c_str(), ext_policy_.c_str());
    std::fflush(stderr);
    int sig = 0;
    sigwait(&signals, &sig);
    std::fprintf(stderr, "gpufleet place extender: signal %d, stopping\n", sig);
    server.Stop();
    return OkStatus();
  }

  std::string inventory_;
  std::string request_;
  std::string policy_ = "gpufleet";
  bool json_ = false;
  int alternatives_ = 3;
  std::string objective_;
  double deadline_hours_ = 0;
  std::string throughputs_ = "../shared/traces/gavel/simulation_throughputs.json";
  std::string prices_;

  CLI::App* extender_ = nullptr;
  std::string ext_inventory_;
  std::string ext_listen_ = "127.0.0.1:8888";
  std::string ext_policy_ = "gpufleet";

  CLI::App* slurm_ = nullptr;  // `place slurm` (place_slurm_command.cc)
  std::unique_ptr<Command> place_slurm_ = NewPlaceSlurmCommand();
};

}  // namespace

std::unique_ptr<Command> NewPlaceCommand() { return std::make_unique<PlaceCommand>(); }

}  // namespace gpufleet
