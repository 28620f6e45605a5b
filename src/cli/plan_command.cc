// gpufleet plan: capacity planners across GPU vendors (docs/plan.md).
//   plan inference [--model M] [--trace conv|code|FILE|synthetic] [--gpu-type T[:USD]]...
//                  [--ttft-ms X] [--tpot-ms Y] [--tbt-p99-ms Z] [--attainment A]
//                  [--batching chunked|mixed|prefill-first] [--token-budget N]...
//                  [--admission fcfs|deadline] [--queue instance|shared]
//                  [--prefill-batch-tokens N] [--search-serving] [--json]
//   plan training --job FILE [--json]
//   plan ring --topology FILE [--json]
//   plan calibration [--json]
//   plan splitwise [--trace conv|code] [--budget-h100-machines N] [--batching B]
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "plan/plan_service.h"

namespace gpufleet {
namespace {

class PlanCommand : public Command {
 public:
  std::string_view name() const override { return "plan"; }
  std::string_view help() const override {
    return "Plan inference pools (colocated or prefill/decode split, GPU type, TP, counts, KV "
           "cache), training work splits and all-reduce ring orders across GPU vendors "
           "(see docs/plan.md).";
  }
  void Configure(CLI::App& app) override {
    app.require_subcommand(1, 1);
    app.fallthrough();  // --json / --shared may follow the subcommand
    app.add_option("--shared", shared_, "Folder of the shared data (traces for calibration)")
        ->capture_default_str();
    app.add_flag("--json", json_, "Print the plan as JSON");

    inference_ = app.add_subcommand(
        "inference", "Serving plan for a model and a request trace at the lowest cost within SLO");
    auto& o = opts_;
    inference_
        ->add_option(
            "--model", o.model,
            "llama2-7b, llama2-70b, llama3-8b, llama3-70b, mixtral-8x7b (data/plan/models.toml)")
        ->capture_default_str();
    inference_
        ->add_option("--trace", o.trace,
                     "conv or code (Azure LLM traces under --shared), a CSV in that format, "
                     "or synthetic")
        ->capture_default_str();
    inference_->add_option("--rate", o.rate_per_s, "synthetic: requests per second")
        ->check(CLI::Range(1e-6, 1e6))
        ->capture_default_str();
    inference_->add_option("--duration-s", o.duration_s, "synthetic: seconds")
        ->check(CLI::Range(1.0, 86400.0))
        ->capture_default_str();
    inference_->add_option("--prompt", o.prompt_tokens, "synthetic: prompt tokens")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    inference_->add_option("--output", o.output_tokens, "synthetic: output tokens")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    inference_->add_option("--rate-scale", o.rate_scale, "Speed arrivals up by this factor")
        ->check(CLI::Range(1e-3, 1e3))
        ->capture_default_str();
    inference_->add_option("--max-requests", o.max_requests, "Use the first N requests (0 = all)")
        ->check(CLI::NonNegativeNumber);
    inference_->add_option("--gpu-type", gpu_types_,
                           "GPU type (data/plan/gpus.toml) or catalog-key:USD_PER_GPU_HOUR; repeat "
                           "(default a100-80gb, h100, mi300x)");
    inference_->add_option("--tp", o.tps, "Tensor-parallel degrees to consider")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    inference_->add_option("--ttft-ms", ttft_ms_, "Time to first token SLO per request")
        ->capture_default_str();
    inference_->add_option("--tpot-ms", tpot_ms_, "Time per output token SLO per request")
        ->capture_default_str();
    inference_->add_option("--attainment", o.slo.attainment, "Share of requests within SLO")
        ->check(CLI::Range(0.01, 1.0))
        ->capture_default_str();
    inference_->add_option("--ttft-p50-ms", ttft_p50_ms_, "Median TTFT goal (0 = none)");
    inference_->add_option("--tpot-p50-ms", tpot_p50_ms_, "Median TPOT goal (0 = none)");
    inference_->add_option("--tbt-p99-ms", tbt_p99_ms_,
                           "p99 goal on the time between two tokens, over all tokens (0 = none)");
    inference_
        ->add_option("--batching", o.batching,
                     "How colocated instances batch: chunked (vLLM's chunked prefill), mixed "
                     "(whole prompts with decode tokens) or prefill-first")
        ->check(CLI::IsMember({"chunked", "mixed", "prefill-first"}))
        ->capture_default_str();
    inference_
        ->add_option("--token-budget", o.token_budgets,
                     "Tokens per chunked / mixed iteration (vLLM's max_num_batched_tokens); "
                     "colocated plans are searched at each")
        ->check(CLI::Range(16, 1'000'000))
        ->capture_default_str();
    inference_->add_flag("--colocated-only", o.colocated_only,
                         "Do not consider prefill/decode split");
    inference_
        ->add_option("--admission", o.admission,
                     "Which waiting prompt an instance starts: fcfs (first come, first served) or "
                     "deadline (those that can still keep the TTFT first, late ones after)")
        ->check(CLI::IsMember({"fcfs", "deadline"}))
        ->capture_default_str();
    inference_
        ->add_option("--queue", o.queue,
                     "Where prompts wait: instance (each arrival joins the instance with the "
                     "fewest requests) or shared (one queue per prefill pool)")
        ->check(CLI::IsMember({"instance", "shared"}))
        ->capture_default_str();
    inference_
        ->add_option("--prefill-batch-tokens", o.prefill_batch_tokens,
                     "Prompt tokens per prefill-only iteration (prefill pools, prefill-first "
                     "batching); the first prompt always goes, so 1 = one prompt at a time")
        ->check(CLI::Range(1, 1'000'000))
        ->capture_default_str();
    inference_->add_flag("--search-serving", o.search_serving,
                         "Also plan under the other admission, the other queue and one prompt per "
                         "prefill-only iteration (or 8192 tokens if given 1): 8 policies, run in "
                         "parallel; keep the cheapest");

    training_ = app.add_subcommand("training", "Split micro-batches or layers over mixed ranks");
    training_->add_option("--job", job_, "Training job TOML (data/plan/training-example.toml)")
        ->required();
    ring_ = app.add_subcommand("ring", "Order an all-reduce ring over nodes, regions and clouds");
    ring_->add_option("--topology", topology_, "Topology TOML (data/plan/ring-example.toml)")
        ->required();
    splitwise_ = app.add_subcommand(
        "splitwise", "Splitwise's equal-cost comparison (A100 / H100 / power-capped H100, TP8)");
    splitwise_->add_option("--trace", sw_trace_, "conv or code")
        ->check(CLI::IsMember({"conv", "code"}))
        ->capture_default_str();
    splitwise_->add_option("--max-requests", sw_max_, "Use the first N requests (0 = all)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    splitwise_->add_option("--budget-h100-machines", sw_budget_, "Budget in DGX-H100 machines")
        ->check(CLI::Range(2, 64))
        ->capture_default_str();
    splitwise_->add_option("--ttft-ms", sw_ttft_ms_, "TTFT SLO per request")->capture_default_str();
    splitwise_->add_option("--tpot-ms", sw_tpot_ms_, "TPOT SLO per request")->capture_default_str();
    splitwise_->add_option("--ttft-p50-ms", sw_ttft_p50_ms_, "Median TTFT goal (0 = none)");
    splitwise_->add_option("--tpot-p50-ms", sw_tpot_p50_ms_, "Median TPOT goal (0 = none)");
    splitwise_->add_option("--tbt-p99-ms", sw_tbt_p99_ms_,
                           "p99 goal on the time between two tokens (0 = none)");
    splitwise_
        ->add_option("--batching", sw_batching_,
                     "How the baselines batch: mixed (splitwise-sim's: whole prompts and decode "
                     "tokens in 2,048-token iterations), chunked, or prefill-first")
        ->check(CLI::IsMember({"mixed", "chunked", "prefill-first"}))
        ->capture_default_str();
    calibration_ = app.add_subcommand(
        "calibration", "The latency model's leave-one-configuration-out errors per data set");
  }

  Status Run() override {
    StatusOr<std::string> out = InternalError("no subcommand");
    if (inference_->parsed()) {
      opts_.shared_dir = shared_;
      if (!gpu_types_.empty()) opts_.gpu_types = gpu_types_;
      opts_.slo.ttft_s = ttft_ms_ / 1000;
      opts_.slo.tpot_s = tpot_ms_ / 1000;
      opts_.slo.ttft_p50_s = ttft_p50_ms_ / 1000;
      opts_.slo.tpot_p50_s = tpot_p50_ms_ / 1000;
      opts_.slo.tbt_p99_s = tbt_p99_ms_ / 1000;
      out = plan::RunInferencePlan(opts_, json_);
    } else if (training_->parsed()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(job_));
      out = plan::RunTrainingPlan(text, job_, shared_, json_);
    } else if (ring_->parsed()) {
      ASSIGN_OR_RETURN(std::string text, ReadFileToString(topology_));
      out = plan::RunRingPlan(text, topology_, json_);
    } else if (splitwise_->parsed()) {
      plan::Slo slo;
      slo.ttft_s = sw_ttft_ms_ / 1000;
      slo.tpot_s = sw_tpot_ms_ / 1000;
      slo.ttft_p50_s = sw_ttft_p50_ms_ / 1000;
      slo.tpot_p50_s = sw_tpot_p50_ms_ / 1000;
      slo.tbt_p99_s = sw_tbt_p99_ms_ / 1000;
      ASSIGN_OR_RETURN(plan::Batching batching, plan::ParseBatching(sw_batching_));
      out = plan::RunSplitwiseRepro(sw_trace_, shared_, sw_max_, sw_budget_, slo, batching, json_);
    } else if (calibration_->parsed()) {
      out = plan::RunCalibrationReport(shared_, json_);
    }
    RETURN_IF_ERROR(out.status());
    std::fputs(out->c_str(), stdout);
    return OkStatus();
  }

 private:
  CLI::App* inference_ = nullptr;
  CLI::App* training_ = nullptr;
  CLI::App* ring_ = nullptr;
  CLI::App* calibration_ = nullptr;
  CLI::App* splitwise_ = nullptr;
  std::string sw_trace_ = "conv";
  int sw_max_ = 0;
  int sw_budget_ = 4;
  double sw_ttft_ms_ = 2000, sw_tpot_ms_ = 100, sw_ttft_p50_ms_ = 0, sw_tpot_p50_ms_ = 0,
         sw_tbt_p99_ms_ = 0;
  std::string sw_batching_ = "mixed";
  plan::InferenceOptions opts_;
  std::vector<std::string> gpu_types_;
  double ttft_ms_ = 2000, tpot_ms_ = 100, ttft_p50_ms_ = 0, tpot_p50_ms_ = 0, tbt_p99_ms_ = 0;
  std::string shared_ = "../shared";
  bool json_ = false;
  std::string job_, topology_;
};

}  // namespace

std::unique_ptr<Command> NewPlanCommand() { return std::make_unique<PlanCommand>(); }

}  // namespace gpufleet
