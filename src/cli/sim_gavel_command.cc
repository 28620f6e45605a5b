// gpufleet sim gavel: Gavel's (OSDI'20) round-based cluster simulation on its
// measured throughputs: one or more policies over a range of input job rates,
// average JCT and cost per job as CSV and SVG, compared with the numbers cached
// in Gavel's notebooks when --compare is given.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "core/file_util.h"
#include "cost/price_book.h"
#include "place/gavel_choice.h"
#include "place/gavel_colocation_model.h"
#include "place/gavel_cost_bound.h"
#include "place/gavel_data.h"
#include "place/gavel_policy.h"
#include "place/gavel_report.h"
#include "place/gavel_throughput_model.h"
#include "server/place_prices.h"

namespace gpufleet {
namespace {

class SimGavelCommand : public Command {
 public:
  std::string_view name() const override { return "gavel"; }
  std::string_view help() const override {
    return "Gavel-style round-based scheduling simulation (avg JCT and cost vs job rate)";
  }
  void Configure(CLI::App& app) override {
    app.add_option("--throughputs", throughputs_,
                   "Gavel's simulation_throughputs.json (../shared/traces/gavel/)")
        ->required();
    app.add_option("--trace", trace_,
                   "continuous-single, continuous-multiple, or static-multiple (all jobs at t=0; "
                   "--rates then gives numbers of jobs and the makespan is compared)")
        ->capture_default_str();
    std::string names;
    for (const std::string& n : place::GavelPolicyNames()) names += (names.empty() ? "" : ", ") + n;
    app.add_option(
        "--policy", policies_,
        "Policy (repeatable): " + names +
            "; also max_min_fairness_packed:pruned (no pairs that time-slicing dominates), "
            "max_min_fairness_packed:per_job (Gavel's per-job LP, slow), fifo_packed:raw (packing "
            "threshold on raw steps/s, as Gavel's code), fifo:code (agnostic FIFO as Gavel's "
            "code runs it, see docs/scheduling.md), gpufleet_cost:K and "
            "gpufleet_cost_packed:K (keep K of each job's fair throughput)");
    app.add_option("--rates", rates_, "Input job rates in jobs/hour (comma-separated)")
        ->delimiter(',');
    app.add_option("--compare", compare_,
                   "Gavel's gavel_notebook_results.csv: compare, and take its rates when "
                   "--rates is not given");
    app.add_option("--workers", workers_, "GPUs per type k80,p100,v100")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--prices", prices_, "USD per GPU-hour k80,p100,v100 (GCP on-demand, Gavel)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--price-cloud", price_cloud_,
                   "Take the prices from src/cost's price book for this cloud (e.g. gcp); a type "
                   "it cannot price keeps its --prices value (stderr says which)");
    app.add_option("--price-region", price_region_, "With --price-cloud: the region")
        ->capture_default_str();
    app.add_option("--price-book", price_book_,
                   "With --price-cloud: a site price book (docs/cost.md); default: the public "
                   "catalog");
    seed_option_ = app.add_option(
        "--seed", seed_,
        "Trace and shuffle seed (default: Gavel's for the trace, 0 for the continuous traces and 1 "
        "for static-multiple, the seeds of its notebooks)");
    app.add_option("--trace-draws", trace_draws_,
                   "gavel: draw the jobs as Gavel's generator does with Python's random (seed "
                   "N gives the jobs of Gavel's run with seed N); std: the same distributions "
                   "from std::mt19937_64")
        ->check(CLI::IsMember({"gavel", "std"}))
        ->capture_default_str();
    app.add_option("--threads", threads_, "Rates simulated in parallel")->capture_default_str();
    app.add_option("--csv", csv_, "Write the curve as CSV here ('-' = stdout, the default)");
    app.add_option("--choose", choose_,
                   "Instead of simulating: which GPU type for one job of this Gavel job type "
                   "(e.g. 'ResNet-50 (batch size 64)'), with per-type duration, $/job, $/effective "
                   "TFLOP and co-location penalty");
    app.add_option("--scale-factor", scale_factor_, "With --choose: GPUs of the job")->capture_default_str();
    app.add_option("--v100-hours", v100_hours_, "With --choose: the job's length on one V100 set")
        ->capture_default_str();
    app.add_option("--objective", objective_,
                   "With --choose: fastest, cheapest-per-job or cheapest-meeting-deadline")
        ->capture_default_str();
    app.add_option("--deadline-hours", deadline_hours_, "With --choose: the deadline");
    app.add_option("--cost-bound", cost_bound_,
                   "Instead of simulating: a lower bound on any policy's $/job for each budget on "
                   "the mean job duration, given as factors of the duration with every job alone "
                   "on its fastest type (comma-separated, >= 1), over the trace's measured jobs "
                   "4000-4999, with jobs alone and with sharing; with --compare, also at Gavel's "
                   "best JCT per rate (see docs/scheduling.md)")
        ->delimiter(',');
    app.add_option("--startup-minutes", startup_minutes_,
                   "Start-up cost (image pull, JIT, checkpoint restore) a job pays, on its GPUs, "
                   "each time it runs on a GPU type other than in the round before or after a "
                   "round without GPUs; 0 = Gavel's simulator. gpufleet policies rank starting "
                   "jobs by the part of the round they would work")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 5.99));
    app.add_option("--multi-gpu-execution-factor", multi_gpu_execution_factor_,
                   "Multi-GPU jobs run at this share of their measured throughput on every GPU "
                   "type while their steps are drawn from it (1 = Gavel's code as published; "
                   "Gavel's published continuous-multiple runs behave as if it were 0.862, cause "
                   "unknown: see docs/scheduling.md)")
        ->capture_default_str()
        ->check(CLI::Range(0.01, 1.0));
    app.add_option("--cannot-run", cannot_run_,
                   "Software-version feasibility: FAMILY[,FAMILY...]:GPU[,GPU...] makes those job "
                   "families' images unable to run on those GPU types (e.g. Transformer,LM:k80 "
                   "for a framework build without sm_37); repeatable; the same jobs are drawn")
        ->take_all();
    app.add_option("--svg", svg_, "Write an SVG plot here");
    app.add_option("--predicted-pairs", predicted_pairs_,
                   "Packed policies decide with the co-location model's prediction for every pair "
                   "(each pair predicted with its job types held out) while jobs run at the "
                   "measured throughputs: 'learn' (a pair of job types that ran is measured from "
                   "then on) or 'static' (predictions stay; only out-of-memory is learnt); the "
                   "policy is reported as NAME@predicted-pairs-MODE")
        ->check(CLI::IsMember({"learn", "static"}));
  }

  Status Run() override {
    ASSIGN_OR_RETURN(const place::GavelThroughputs measured,
                     place::LoadGavelThroughputs(throughputs_));
    place::GavelThroughputs table = measured;
    for (const std::string& spec : cannot_run_) {
      ASSIGN_OR_RETURN(table, place::WithoutRuns(table, spec));
    }
    if (!price_cloud_.empty()) {
      cost::PriceBook book;
      if (!price_book_.empty()) {
        StatusOr<cost::PriceBook> b = cost::PriceBook::Load(price_book_);
        if (!b.ok()) return InvalidArgumentError(b.status().message());
        book = std::move(*b);
      }
      GavelWorkerPrices p =
          PriceGavelWorkers(book, table.workers(), price_cloud_, price_region_, prices_);
      prices_ = p.usd_per_gpu_hour;
      for (size_t w = 0; w < p.sources.size(); ++w) {
        std::fprintf(stderr, "price %s: $%.4f per GPU-hour from %s\n", table.workers()[w].c_str(),
                     prices_[w], p.sources[w].c_str());
      }
    }
    if (!choose_.empty()) return Choose(table);
    if (!cost_bound_.empty()) return CostBound(table, measured);
    place::GavelNotebookJct expected, expected_ftf;
    if (!compare_.empty()) {
      ASSIGN_OR_RETURN(expected, place::LoadGavelNotebookCsv(compare_, &expected_ftf));
    }
    if (policies_.empty()) policies_ = {"max_min_fairness_perf"};
    if (seed_option_->count() == 0 && trace_ == "static-multiple") seed_ = 1;
    std::unique_ptr<place::ColocationModel> coloc;
    place::GavelThroughputs predicted;
    if (!predicted_pairs_.empty()) {
      coloc = std::make_unique<place::ColocationModel>(&table);
      predicted = place::WithPredictedPairs(table, *coloc);
    }
    std::vector<place::GavelCurvePoint> all;
    std::string csv;
    for (const std::string& policy : policies_) {
      place::GavelCurveOptions o;
      o.trace = trace_;
      o.policy = policy;
      o.seed = seed_;
      o.gavel_draws = trace_draws_ == "gavel";
      o.threads = threads_;
      o.sim.workers = workers_;
      o.sim.price_usd_per_hour = prices_;
      o.sim.seed = seed_;
      o.sim.startup_s = startup_minutes_ * 60;
      o.multi_gpu_execution_factor = multi_gpu_execution_factor_;
      o.jobs_table = &measured;
      if (!predicted_pairs_.empty()) {
        o.sim.decision_pairs = &predicted;
        o.sim.learn_pairs = predicted_pairs_ == "learn";
      }
      o.rates_per_hour = rates_;
      if (o.rates_per_hour.empty()) {
        for (const auto& [key, v] : expected) {
          if (std::get<0>(key) == trace_ && std::get<1>(key) == place::GavelComparedPolicy(policy))
            o.rates_per_hour.push_back(std::get<2>(key));
        }
      }
      if (o.rates_per_hour.empty()) {
        return InvalidArgumentError("no rates for policy " + policy + ": give --rates (or --compare with its rows)");
      }
      ASSIGN_OR_RETURN(std::vector<place::GavelCurvePoint> points,
                       place::RunGavelCurve(table, o, compare_.empty() ? nullptr : &expected,
                                            compare_.empty() ? nullptr : &expected_ftf));
      for (place::GavelCurvePoint& p : points) {
        if (!predicted_pairs_.empty()) p.result.policy += "@predicted-pairs-" + predicted_pairs_;
        char bound[128] = "";
        if (p.has_cost_bound) {
          std::snprintf(bound, sizeof(bound),
                        " (least any policy pays at this JCT: $%.2f one job per GPU, $%.2f "
                        "sharing)",
                        p.cost_bound_alone_usd, p.cost_bound_shared_usd);
        }
        if (startup_minutes_ > 0) {
          const size_t used = std::strlen(bound);
          std::snprintf(bound + used, sizeof(bound) - used, ", %lld start-ups",
                        static_cast<long long>(p.result.startups));
        }
        std::fprintf(
            stderr, "%s %.2f %s: %s %.2f h%s, $%.2f/job%s, FTF rho %.3f%s%s%s%s\n",
            p.result.policy.c_str(), p.result.jobs_per_hour, p.makespan ? "jobs" : "jobs/h",
            p.makespan ? "makespan" : "avg JCT", p.Ours(),
            p.has_gavel
                ? (" (Gavel " + std::to_string(p.gavel_jct_hours).substr(0, 6) + " h)").c_str()
                : "",
            p.result.avg_cost_usd, bound, p.result.avg_ftf_rho,
            p.has_isolated_run_ftf ? (", " + std::to_string(p.isolated_run_ftf_rho).substr(0, 5) +
                                      " against an isolated run")
                                         .c_str()
                                   : "",
            p.has_gavel_ftf
                ? (" (Gavel " + std::to_string(p.gavel_ftf_rho).substr(0, 4) + ")").c_str()
                : "",
            p.result.saturated ? " [saturated]" : "",
            p.result.stranded_jobs > 0
                ? (" [" + std::to_string(p.result.stranded_jobs) +
                   " jobs stranded on GPU types they cannot run on; " +
                   std::to_string(p.result.completed_measured) + " of " +
                   std::to_string(p.result.measured_jobs) + " measured jobs completed]")
                      .c_str()
                : "");
      }
      all.insert(all.end(), points.begin(), points.end());
    }
    const std::string text = place::GavelCurvesToCsv(trace_, all);
    if (csv_.empty() || csv_ == "-") {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      RETURN_IF_ERROR(WriteStringToFile(csv_, text));
    }
    if (!svg_.empty()) {
      RETURN_IF_ERROR(WriteStringToFile(svg_, place::GavelCurvesToSvg("Gavel " + trace_ + " (36 K80 + 36 P100 + 36 V100)", all)));
    }
    return OkStatus();
  }

 private:
  static void PrintBoundHeader(const char* first) {
    std::printf("%s\n  %8s %19s %19s %19s\n", first, "hours", "alone $/job", "shared $/job",
                "free partners $/job");
  }
  // Row i of `b`; percentages against `ref`'s every-job-on-its-fastest cost.
  static void PrintBoundRow(const char* label, const place::GavelCostBound& b, size_t i,
                            const place::GavelCostBound& ref) {
    auto pct = [&](double usd) { return 100 * (usd / ref.fastest_usd - 1); };
    const place::CostBoundPoint &a = b.alone[i], &s = b.shared[i], &f = b.free_partners[i];
    std::printf("%s\n  %8.2f %10.2f (%+5.1f%%) %10.2f (%+5.1f%%) %10.2f (%+5.1f%%)\n", label,
                a.avg_hours, a.avg_usd, pct(a.avg_usd), s.avg_usd, pct(s.avg_usd), f.avg_usd,
                pct(f.avg_usd));
  }

  // `jobs_table` draws the jobs (the measured table, before --cannot-run).
  Status CostBound(const place::GavelThroughputs& table,
                   const place::GavelThroughputs& jobs_table) {
    if (trace_ != "continuous-single" && trace_ != "continuous-multiple") {
      return InvalidArgumentError("--cost-bound: needs a continuous trace, not \"" + trace_ +
                                  "\" (its jobs all arrive at once)");
    }
    place::GavelTraceOptions to;
    to.multi_gpu = trace_ == "continuous-multiple";
    to.seed = seed_;
    to.gavel_draws = trace_draws_ == "gavel";
    const place::GavelSimOptions measured;
    to.num_jobs = static_cast<int>(measured.measure_end);
    ASSIGN_OR_RETURN(std::vector<place::GavelSimJob> jobs,
                     place::GenerateGavelJobs(jobs_table, to));
    jobs.erase(jobs.begin(), jobs.begin() + measured.measure_begin);
    ASSIGN_OR_RETURN(place::GavelCostBound b,
                     place::ComputeGavelCostBound(table, jobs, prices_, cost_bound_));
    std::printf(
        "%d jobs (%s, seed %llu). Every job alone on its fastest type: %.2f h mean duration, "
        "$%.2f/job.\nLowest cost at any duration: $%.2f/job alone (%+.1f%%), $%.2f/job with "
        "sharing (%+.1f%%), $%.2f/job with partners from outside these jobs (%+.1f%%).\n",
        b.jobs, trace_.c_str(), static_cast<unsigned long long>(seed_), b.fastest_hours,
        b.fastest_usd, b.cheapest_alone_usd, 100 * (b.cheapest_alone_usd / b.fastest_usd - 1),
        b.cheapest_shared_usd, 100 * (b.cheapest_shared_usd / b.fastest_usd - 1),
        b.cheapest_free_partners_usd, 100 * (b.cheapest_free_partners_usd / b.fastest_usd - 1));
    PrintBoundHeader("budget");
    for (size_t i = 0; i < b.alone.size(); ++i) {
      char label[32];
      std::snprintf(label, sizeof(label), "x%.3f", b.alone[i].jct_factor);
      PrintBoundRow(label, b, i, b);
    }
    if (compare_.empty()) return OkStatus();
    // Per rate, the budget is Gavel's best heterogeneity-aware JCT there:
    // every policy that is no slower on average keeps its mean running time
    // within it (a job's running time is at most its JCT).
    ASSIGN_OR_RETURN(place::GavelNotebookJct expected, place::LoadGavelNotebookCsv(compare_));
    std::map<double, std::pair<double, std::string>> best;  // rate -> (JCT, policy)
    for (const auto& [key, jct] : expected) {
      const auto& [trace, policy, rate] = key;
      const bool aware = policy.ends_with("_perf") || policy.ends_with("_packed");
      if (trace != trace_ || !aware) continue;
      auto [it, fresh] = best.try_emplace(rate, jct, policy);
      if (!fresh && jct < it->second.first)
        it->second = {jct, policy};
      else if (!fresh && jct == it->second.first)
        it->second.second += " = " + policy;
    }
    std::vector<double> factors;
    for (const auto& [rate, b_jct] : best)
      factors.push_back(std::max(1.0, b_jct.first / b.fastest_hours));
    if (factors.empty()) return OkStatus();
    ASSIGN_OR_RETURN(place::GavelCostBound at_gavel,
                     place::ComputeGavelCostBound(table, jobs, prices_, factors));
    std::printf("\nBudget = Gavel's best heterogeneity-aware JCT at each rate (%s):\n",
                compare_.c_str());
    PrintBoundHeader("rate, Gavel's best JCT (policy), budget");
    size_t i = 0;
    for (const auto& [rate, b_jct] : best) {
      char label[160];
      std::snprintf(label, sizeof(label), "%.2f, %.2f h (%s), x%.3f%s", rate, b_jct.first,
                    b_jct.second.c_str(), b_jct.first / b.fastest_hours,
                    b_jct.first < b.fastest_hours ? " (bound at x1)" : "");
      PrintBoundRow(label, at_gavel, i++, b);
    }
    return OkStatus();
  }

  Status Choose(const place::GavelThroughputs& table) {
    const int job = table.FindJobType(choose_, scale_factor_);
    const int v100 = table.FindWorker("v100");
    if (job < 0 || v100 < 0 || table.Isolated(job, v100) <= 0) {
      return NotFoundError("--choose: no job type \"" + choose_ + "\" at scale factor " +
                           std::to_string(scale_factor_) + " with a V100 throughput in " + throughputs_);
    }
    ASSIGN_OR_RETURN(std::vector<place::WorkerPeaks> peaks, place::GavelWorkerPeaks(table));
    place::ThroughputModel tm(&table, peaks);
    place::ColocationModel cm(&table);
    place::GpuChoiceRequest r;
    r.job_type = job;
    r.total_steps = v100_hours_ * 3600 * table.Isolated(job, v100);
    ASSIGN_OR_RETURN(r.objective, place::ParseGpuObjective(objective_));
    r.deadline_hours = deadline_hours_;
    r.price_usd_per_hour = prices_;
    ASSIGN_OR_RETURN(place::GpuChoice c, place::ChooseGpuType(table, tm, cm, peaks, r));
    std::printf("%-6s %10s %-22s %10s %9s %14s %12s\n", "gpu", "steps/s", "basis", "hours", "$/job",
                "$/eff-TFLOP", "coloc-pen");
    for (size_t i = 0; i < c.options.size(); ++i) {
      const place::GpuOptionEstimate& o = c.options[i];
      std::printf("%-6s %10.3f %-22s %10.2f %9.2f %14.6f %12.2f%s\n", o.worker.c_str(), o.steps_per_s,
                  place::ThroughputBasisName(o.basis), o.duration_hours, o.usd_per_job,
                  o.usd_per_effective_tflop, o.colocation_penalty,
                  static_cast<int>(i) == c.chosen ? "  <- chosen" : "");
    }
    std::printf("%s\n", c.reason.c_str());
    return OkStatus();
  }

  std::vector<double> cost_bound_;
  std::string predicted_pairs_;
  std::string choose_, objective_ = "fastest";
  int scale_factor_ = 1;
  double v100_hours_ = 10, deadline_hours_ = 0;
  double startup_minutes_ = 0;
  double multi_gpu_execution_factor_ = 1;
  std::vector<std::string> cannot_run_;
  std::string throughputs_, trace_ = "continuous-single", compare_, csv_, svg_;
  std::vector<std::string> policies_;
  std::vector<double> rates_;
  std::vector<int> workers_ = {36, 36, 36};
  std::vector<double> prices_ = {0.52, 1.68, 2.85};
  std::string price_cloud_, price_region_ = "us-central1", price_book_;
  uint64_t seed_ = 0;
  CLI::Option* seed_option_ = nullptr;
  std::string trace_draws_ = "gavel";
  int threads_ = 2;
};

}  // namespace

std::unique_ptr<Command> NewSimGavelCommand() { return std::make_unique<SimGavelCommand>(); }

}  // namespace gpufleet
