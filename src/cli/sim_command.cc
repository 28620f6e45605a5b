// gpufleet sim place: replays a workload trace against an inventory with one
// or more placement policies (the FGD paper's protocol), writing allocation
// and fragmentation curves as CSV and SVG; --compare-expected runs the whole
// reproduction against the authors' published results.
// `sim` holds sub-subcommands so other simulations can join it later.
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/strings.h"
#include "place/alibaba_csv.h"
#include "place/reproduction.h"
#include "place/simulator.h"

namespace gpufleet {
namespace {

using place::CsvLoad;

class SimCommand : public Command {
 public:
  std::string_view name() const override { return "sim"; }
  std::string_view help() const override {
    return "Offline simulations. 'sim place' replays a pod trace (Alibaba GPU trace CSV) "
           "against a node list with placement policies; 'sim gavel' runs Gavel's round-based "
           "scheduling simulation on its measured throughputs.";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1);
    place_ = app.add_subcommand("place", "Trace-replay placement simulator (FGD protocol)");
    place_->add_option("--nodes", nodes_, "Node list CSV (sn,cpu_milli,memory_mib,gpu,model)");
    place_->add_option("--pods", pods_, "Pod list CSV (name,cpu_milli,memory_mib,num_gpu,...)");
    place_->add_option("--policy", policies_,
                       "Policy (repeatable): random, dotprod, gpuclustering, gpupacking, bestfit, "
                       "fgd, gpufleet, or weighted 'fgd:0.7,bestfit:0.3'");
    place_->add_option("--seed", seed_, "First seed")->capture_default_str();
    place_->add_option("--seeds", seeds_, "Number of seeds (seed, seed+1, ...)")
        ->capture_default_str();
    place_->add_option("--inflate", inflate_, "Inflate the workload to this x GPU capacity")
        ->capture_default_str();
    place_->add_option("--csv", csv_, "Write curves as CSV here ('-' = stdout)");
    place_->add_option("--svg", svg_, "Write an SVG plot here");
    place_->add_flag("--strict", strict_, "Fail on the first malformed CSV row");
    place_->add_option("--compare-expected", expected_dir_,
                       "Directory of the authors' analysis_*_discrete.csv: run every trace x "
                       "policy x seed and compare at 50/100/130% arrived");
    place_->add_option("--traces-dir", traces_dir_,
                       "With --compare-expected: directory holding the trace CSVs");
    place_->add_option("--workload", workloads_,
                       "With --compare-expected: pod list names (repeatable; default: default, "
                       "cpu050/100/200/250, gpushare40/60/80/100)");
    place_->add_option("--report", report_, "With --compare-expected: write the Markdown here");
    place_->add_option("--jobs", jobs_, "Worker threads for --compare-expected")
        ->capture_default_str();
    place_->add_flag("-q,--quiet", quiet_, "No progress on stderr");
    detect_ = app.add_subcommand("detect", std::string(sim_detect_->help()));
    sim_detect_->Configure(*detect_);
    gavel_ = app.add_subcommand("gavel", std::string(sim_gavel_->help()));
    sim_gavel_->Configure(*gavel_);
  }

  Status Run() override {
    if (detect_->parsed()) return sim_detect_->Run();
    if (gavel_->parsed()) return sim_gavel_->Run();
    if (!expected_dir_.empty()) return RunCompare();
    if (nodes_.empty() || pods_.empty()) {
      return InvalidArgumentError("sim place needs --nodes and --pods (or --compare-expected)");
    }
    if (policies_.empty()) policies_ = {"fgd"};
    place::CsvOptions copts{strict_};
    ASSIGN_OR_RETURN(CsvLoad<place::NodeSpec> nodes, place::LoadAlibabaNodes(nodes_, copts));
    ASSIGN_OR_RETURN(CsvLoad<place::WorkloadRequest> pods, place::LoadAlibabaPods(pods_, copts));
    for (const auto* skipped : {&nodes.skipped, &pods.skipped}) {
      for (const std::string& s : *skipped) std::fprintf(stderr, "skipped %s\n", s.c_str());
    }
    std::vector<place::SimResult> results;
    for (const std::string& policy : policies_) {
      for (int k = 0; k < seeds_; ++k) {
        place::SimOptions so;
        so.policy = policy;
        so.seed = seed_ + static_cast<uint64_t>(k);
        so.inflate_ratio = inflate_;
        if (!quiet_) {
          so.progress = [&](int done, int total) {
            std::fprintf(stderr, "\r%s seed %llu: %d/%d pods", policy.c_str(),
                         static_cast<unsigned long long>(so.seed), done, total);
          };
        }
        ASSIGN_OR_RETURN(place::SimResult r, place::RunSimulation(nodes.rows, pods.rows, so));
        if (!quiet_) {
          std::fprintf(stderr,
                       "\r%s seed %llu: %d pods, %d failed, alloc@100 %.2f%% alloc@130 %.2f%% "
                       "(%.0f GPUs unallocated), %.2f s\n",
                       r.policy.c_str(), static_cast<unsigned long long>(r.seed), r.pods_total,
                       r.pods_failed, r.AllocAt(100), r.AllocAt(130), r.UnallocatedGpusAt(130),
                       r.seconds);
        }
        results.push_back(std::move(r));
      }
    }
    std::string csv = place::CurvesToCsv(results);
    if (csv_ == "-" || (csv_.empty() && svg_.empty())) {
      std::fwrite(csv.data(), 1, csv.size(), stdout);
    } else if (!csv_.empty()) {
      RETURN_IF_ERROR(WriteStringToFile(csv_, csv));
    }
    if (!svg_.empty()) {
      RETURN_IF_ERROR(WriteStringToFile(svg_, place::CurvesToSvg(results, pods_)));
    }
    return OkStatus();
  }

 private:
  Status RunCompare() {
    place::ReproOptions ro;
    ro.traces_dir = traces_dir_.empty() ? expected_dir_ + "/.." : traces_dir_;
    ro.workloads = workloads_;
    if (ro.workloads.empty()) {
      for (const char* w : {"default", "cpu050", "cpu100", "cpu200", "cpu250", "gpushare40",
                            "gpushare60", "gpushare80", "gpushare100"}) {
        ro.workloads.push_back(std::string("openb_pod_list_") + w);
      }
    }
    for (std::string& w : ro.workloads) {
      if (!StartsWith(w, "openb_pod_list_")) w = "openb_pod_list_" + w;
    }
    ro.policies = policies_;
    if (ro.policies.empty()) {
      ro.policies = {"random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd",
                     "gpufleet"};
    }
    for (int k = 0; k < seeds_; ++k) ro.seeds.push_back(seed_ + static_cast<uint64_t>(k));
    ro.jobs = jobs_;
    if (!quiet_) ro.progress = [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    };
    ASSIGN_OR_RETURN(place::ExpectedResults expected,
                     place::LoadExpectedResults(expected_dir_));
    ASSIGN_OR_RETURN(place::ReproReport report, place::RunReproduction(ro, expected));
    std::string md = place::ReproToMarkdown(report, ro);
    if (report_.empty()) {
      std::fwrite(md.data(), 1, md.size(), stdout);
    } else {
      RETURN_IF_ERROR(WriteStringToFile(report_, md));
    }
    return OkStatus();
  }

  CLI::App* place_ = nullptr;
  CLI::App* detect_ = nullptr;  // `sim detect`: detection quality (detect_eval_command.cc)
  std::unique_ptr<Command> sim_detect_ = NewSimDetectCommand();
  CLI::App* gavel_ = nullptr;  // `sim gavel`: Gavel-style scheduling (sim_gavel_command.cc)
  std::unique_ptr<Command> sim_gavel_ = NewSimGavelCommand();
  std::string nodes_, pods_;
  std::vector<std::string> policies_;
  uint64_t seed_ = 42;
  int seeds_ = 1;
  double inflate_ = 1.3;
  std::string csv_, svg_;
  bool strict_ = false;
  std::string expected_dir_, traces_dir_, report_;
  std::vector<std::string> workloads_;
  int jobs_ = 2;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> NewSimCommand() { return std::make_unique<SimCommand>(); }

}  // namespace gpufleet
