// gpufleet advise: moves of running jobs that pay for their migration.
//   advise --server URL --jobs FILE [--token T] [--cacert PEM] [--throughputs FILE] [--json]
//       reads the fleet, open incidents, the cost ledger, the jobs' step
//       reports and the nodes' canary runs through the server's APIs
//       (server/advise_client.h), the
//       jobs' profiles and
//       remaining work from FILE, and prints one sentence per advised move;
//       exit 0 (with or without moves), 2 bad input, 1 server unreachable
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "place/advise.h"
#include "place/gavel_data.h"
#include "server/advise_client.h"

namespace gpufleet {
namespace {

class AdviseCommand : public Command {
 public:
  std::string_view name() const override { return "advise"; }
  std::string_view help() const override {
    return "Advise moves of running jobs whose saving exceeds their migration cost, from a "
           "running server's fleet, incidents, cost ledger, the jobs' step reports and the "
           "nodes' canary runs (see docs/scheduling.md).";
  }
  void Configure(CLI::App& app) override {
    app.add_option("--server", server_, "gpufleet server URL (http://127.0.0.1:9840)")->required();
    app.add_option("--jobs", jobs_,
                   "Jobs file: per [[job]], name, job_type, remaining_steps (its own steps), "
                   "checkpoint_minutes, startup_minutes")
        ->required();
    app.add_option("--token", token_, "Bearer token (read) for --server; default $GPUFLEET_TOKEN")
        ->envname("GPUFLEET_TOKEN");
    app.add_option("--cacert", cacert_, "CA certificate (PEM) for an https server");
    app.add_option("--throughputs", throughputs_,
                   "Gavel's simulation_throughputs.json (the throughput model's data)")
        ->capture_default_str();
    app.add_flag("--json", json_, "Print the advice as JSON");
  }

  Status Run() override {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(jobs_));
    StatusOr<std::vector<AdviseJobSpec>> jobs = ParseAdviseJobs(text, jobs_);
    if (!jobs.ok()) return InvalidArgumentError(jobs.status().message());
    StatusOr<place::GavelThroughputs> table = place::LoadGavelThroughputs(throughputs_);
    if (!table.ok()) return InvalidArgumentError(table.status().message());
    ASSIGN_OR_RETURN(AdviseSnapshot snap, FetchAdviseSnapshot(*NewHttpClient({.ca_file = cacert_}),
                                                              server_, token_, *jobs));
    ASSIGN_OR_RETURN(place::Advice advice, place::AdviseMoves(*table, snap.jobs, snap.capacity));
    for (const std::string& s : snap.not_found) advice.skipped.push_back(s);
    std::string out = json_ ? place::AdviceJson(advice) : place::AdviceText(advice);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return OkStatus();
  }

 private:
  std::string server_, jobs_, token_, cacert_;
  std::string throughputs_ = "../shared/traces/gavel/simulation_throughputs.json";
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> NewAdviseCommand() { return std::make_unique<AdviseCommand>(); }

}  // namespace gpufleet
