#include "plan/plan_service.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/toml_reader.h"
#include "plan/calibration.h"
#include "plan/inference_bound.h"
#include "plan/inference_planner.h"
#include "plan/plan_input.h"
#include "plan/splitwise_repro.h"

namespace gpufleet::plan {
namespace {

using nlohmann::json;

StatusOr<LatencyTable> Table(const std::string& shared_dir, const std::vector<GpuType>& types,
                             std::vector<std::string>* notes) {
  CalData data;
  const bool found = std::filesystem::exists(shared_dir + "/traces");
  if (found) {
    ASSIGN_OR_RETURN(data, LoadCalibrationData(shared_dir));
    for (const std::string& m : data.missing) notes->push_back("calibration file absent: " + m);
  } else {
    notes->push_back("calibration data not found under " + shared_dir +
                     "/traces (pass --shared DIR): latency is an uncalibrated roofline estimate");
  }
  ASSIGN_OR_RETURN(LatencyTable t, BuildLatencyTable(data, types));
  // Without ../shared the table's own note says what the line above said.
  if (!t.note.empty() && found) notes->push_back(t.note);
  return t;
}

// A two-way setting: false for `off`, true for `on`; anything else is
// InvalidArgument naming the field and both values.
StatusOr<bool> ParseChoice(const std::string& value, const char* field, const char* off,
                           const char* on) {
  if (value == off || value == on) return value == on;
  return InvalidArgumentError(std::string(field) + " must be \"" + off + "\" or \"" + on +
                              "\", not \"" + value + "\"");
}

StatusOr<bool> ParseAdmission(const std::string& v) {
  return ParseChoice(v, "admission", "fcfs", "deadline");
}

StatusOr<bool> ParseQueue(const std::string& v) {
  return ParseChoice(v, "queue", "instance", "shared");
}

std::string AdmissionName(bool defer_late) { return defer_late ? "deadline" : "fcfs"; }
std::string QueueName(bool shared) { return shared ? "shared" : "instance"; }

// "deadline admission, shared queues, 1 prompt token per prefill-only iteration".
std::string PolicyText(bool defer_late, bool shared_queue, int prefill_batch_tokens) {
  return AdmissionName(defer_late) + " admission, " + QueueName(shared_queue) + " queues, " +
         std::to_string(prefill_batch_tokens) +
         (prefill_batch_tokens == 1 ? " prompt token" : " prompt tokens") +
         " per prefill-only iteration";
}

std::string Fmt(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

// The fluid bound in words: what phase splitting can save at these prices,
// and how far each reported plan is from full use of its GPUs.
std::string BoundText(const InferenceCostBound& b, const InferencePlan& plan) {
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "Least any plan can pay under this latency model (every GPU busy all the time, "
                "no SLO): $%.3f per million tokens on one GPU type (%s), $%.3f mixing types "
                "(prefill on %s, decode on %s): splitting the phases over GPU types saves at most "
                "%.1f%% before utilisation.",
                b.PerMtoken(b.single_type_usd), b.single_type.c_str(), b.PerMtoken(b.any_usd),
                OptionName(b.any_prefill).c_str(), OptionName(b.any_decode).c_str(),
                100 * b.SplitRoom());
  std::string out = buf;
  if (!plan.has_plan) return out;
  const double chosen = b.PerMtoken(PlanBoundUsd(b, plan.chosen));
  const double single = b.PerMtoken(PlanBoundUsd(b, plan.best_single_type));
  if (chosen > 0 && single > 0) {
    std::snprintf(buf, sizeof buf,
                  " The chosen plan pays %.2fx the bound of its own pools ($%.3f), the best "
                  "single-type plan %.2fx ($%.3f).",
                  plan.chosen.result.usd_per_mtoken / chosen, chosen,
                  plan.best_single_type.result.usd_per_mtoken / single, single);
    out += buf;
  }
  if (b.slo_any_usd > 0) {
    std::snprintf(buf, sizeof buf,
                  " With the SLO too (the prefill instances a plan must hold through the "
                  "trace for the TTFT, the decode iterations the TPOT allows): at least $%.3f "
                  "per million tokens on one GPU type, $%.3f mixing types (%s)",
                  b.PerMtoken(b.slo_single_type_usd), b.PerMtoken(b.slo_any_usd),
                  b.slo_any.c_str());
    out += buf;
    const double best = plan.best_single_type.result.usd_per_mtoken;
    if (plan.has_plan && best > 0) {
      std::snprintf(buf, sizeof buf,
                    "; no plan meets the SLO more than %.1f%% cheaper than the best single-type "
                    "plan found",
                    100 * (1 - b.PerMtoken(b.slo_any_usd) / best));
      out += buf;
    }
    out += ".";
  }
  return out;
}

json BoundJson(const InferenceCostBound& b, const InferencePlan& plan) {
  json options = json::array();
  for (const PhaseCostOption& o : b.options) {
    options.push_back({{"gpu_type", o.gpu_type},
                       {"tp", o.tp},
                       {"prefill_usd_per_mtoken", b.PerMtoken(o.prefill_usd)},
                       {"decode_usd_per_mtoken", b.PerMtoken(o.decode_usd)},
                       {"ttft_instances", o.ttft_instances},
                       {"decode_slo_usd_per_mtoken",
                        o.meets_tpot ? json(b.PerMtoken(o.decode_slo_usd)) : json(nullptr)}});
  }
  json j = {{"single_type_usd_per_mtoken", b.PerMtoken(b.single_type_usd)},
            {"single_type", b.single_type},
            {"any_usd_per_mtoken", b.PerMtoken(b.any_usd)},
            {"any_prefill", OptionName(b.any_prefill)},
            {"any_decode", OptionName(b.any_decode)},
            {"split_room", b.SplitRoom()},
            {"slo_single_type_usd_per_mtoken", b.PerMtoken(b.slo_single_type_usd)},
            {"slo_any_usd_per_mtoken", b.PerMtoken(b.slo_any_usd)},
            {"slo_any", b.slo_any},
            {"options", options}};
  if (plan.has_plan) {
    j["chosen_usd_per_mtoken"] = b.PerMtoken(PlanBoundUsd(b, plan.chosen));
    j["best_single_type_usd_per_mtoken"] = b.PerMtoken(PlanBoundUsd(b, plan.best_single_type));
  }
  return j;
}

json ResultJson(const PlanCandidate& c) {
  const SimResult& r = c.result;
  json j = {{"layout", c.config.disaggregated ? "disaggregated" : "colocated"},
            {"description", c.Describe()},
            {"prefill",
             {{"gpu_type", c.prefill_type},
              {"tp", c.config.prefill.tp},
              {"instances", c.config.prefill.count}}},
            {"gpus", r.gpus},
            {"usd_per_hour", r.usd_per_hour},
            {"usd_per_mtoken", r.usd_per_mtoken},
            {"attainment", r.attainment},
            {"requests", r.requests},
            {"completed", r.completed},
            {"failed", r.failed},
            {"ttft_p50_s", r.ttft_p50_s},
            {"ttft_p99_s", r.ttft_p99_s},
            {"tpot_p50_s", r.tpot_p50_s},
            {"tpot_p99_s", r.tpot_p99_s},
            {"tbt_p50_s", r.tbt_p50_s},
            {"tbt_p99_s", r.tbt_p99_s},
            {"throughput_tokens_per_s", r.throughput_tokens_per_s},
            {"kv_capacity_tokens_per_instance", r.kv_capacity_tokens},
            {"kv_transfer_s_mean", r.kv_transfer_s_mean}};
  if (c.config.disaggregated) {
    j["decode"] = {{"gpu_type", c.decode_type},
                   {"tp", c.config.decode.tp},
                   {"instances", c.config.decode.count}};
  }
  return j;
}

// An optional array of integers in [lo, hi] (`non_empty`: at least one);
// absent leaves `out` as it is.
Status ReadIntArray(const TomlReader& r, std::string_view key, int64_t lo, int64_t hi,
                    bool non_empty, std::vector<int>& out) {
  const toml::node* n = r.Get(key);
  if (n == nullptr) return OkStatus();
  const toml::array* a = n->as_array();
  if (a == nullptr || (non_empty && a->empty())) {
    return r.FieldError(
        *n, key,
        non_empty ? "must be a non-empty array of integers" : "must be an array of integers");
  }
  out.clear();
  for (const toml::node& e : *a) {
    const auto* v = e.as_integer();
    if (v == nullptr || v->get() < lo || v->get() > hi) {
      return r.FieldError(
          e, key, "entries must be integers " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    out.push_back(static_cast<int>(v->get()));
  }
  return OkStatus();
}

}  // namespace

StatusOr<InferenceOptions> ParseInferenceOptions(std::string_view text, std::string_view origin,
                                                 const std::string& shared_dir) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(text, origin));
  TomlReader r(root, origin);
  RETURN_IF_ERROR(r.CheckKeys({"model",          "trace",
                               "rate_per_s",     "duration_s",
                               "prompt_tokens",  "output_tokens",
                               "rate_scale",     "max_requests",
                               "gpu_types",      "tps",
                               "ttft_ms",        "tpot_ms",
                               "attainment",     "ttft_p50_ms",
                               "tpot_p50_ms",    "tbt_p99_ms",
                               "colocated_only", "batching",
                               "token_budgets",  "admission",
                               "queue",          "prefill_batch_tokens",
                               "search_serving"}));
  InferenceOptions o;
  o.shared_dir = shared_dir;
  int64_t prompt = o.prompt_tokens, output = o.output_tokens, maxr = 0;
  double ttft_ms = o.slo.ttft_s * 1000, tpot_ms = o.slo.tpot_s * 1000, p50a = 0, p50b = 0;
  RETURN_IF_ERROR(r.Read("model", o.model));
  RETURN_IF_ERROR(r.Read("trace", o.trace));
  if (o.trace != "conv" && o.trace != "code" && o.trace != "synthetic") {
    return r.FieldError(*root.get("trace"), "trace",
                        "must be \"conv\", \"code\" or \"synthetic\" (files are CLI-only)");
  }
  RETURN_IF_ERROR(r.Read("rate_per_s", o.rate_per_s, 1e-6, 1e6));
  RETURN_IF_ERROR(r.Read("duration_s", o.duration_s, 1.0, 86400.0));
  RETURN_IF_ERROR(r.Read("prompt_tokens", prompt, 1, 1'000'000));
  RETURN_IF_ERROR(r.Read("output_tokens", output, 1, 1'000'000));
  RETURN_IF_ERROR(r.Read("rate_scale", o.rate_scale, 1e-3, 1e3));
  RETURN_IF_ERROR(r.Read("max_requests", maxr, 0, 10'000'000));
  RETURN_IF_ERROR(r.Read("gpu_types", o.gpu_types));
  RETURN_IF_ERROR(r.Read("ttft_ms", ttft_ms, 1e-3, 1e9));
  RETURN_IF_ERROR(r.Read("tpot_ms", tpot_ms, 1e-3, 1e9));
  RETURN_IF_ERROR(r.Read("attainment", o.slo.attainment, 0.01, 1.0));
  RETURN_IF_ERROR(r.Read("ttft_p50_ms", p50a, 0.0, 1e9));
  RETURN_IF_ERROR(r.Read("tpot_p50_ms", p50b, 0.0, 1e9));
  double tbt_ms = 0;
  RETURN_IF_ERROR(r.Read("tbt_p99_ms", tbt_ms, 0.0, 1e9));
  o.slo.tbt_p99_s = tbt_ms / 1000;
  RETURN_IF_ERROR(r.Read("colocated_only", o.colocated_only));
  RETURN_IF_ERROR(r.Read("batching", o.batching));
  RETURN_IF_ERROR(
      ReadIntArray(r, "token_budgets", 16, 1'000'000, /*non_empty=*/true, o.token_budgets));
  if (!ParseBatching(o.batching).ok()) {
    return r.FieldError(*root.get("batching"), "batching",
                        "must be \"chunked\", \"mixed\" or \"prefill-first\"");
  }
  RETURN_IF_ERROR(r.Read("admission", o.admission));
  if (Status s = ParseAdmission(o.admission).status(); !s.ok()) {
    return r.FieldError(*root.get("admission"), "admission", s.message());
  }
  int64_t prefill_batch = o.prefill_batch_tokens;
  RETURN_IF_ERROR(r.Read("prefill_batch_tokens", prefill_batch, 1, 1'000'000));
  o.prefill_batch_tokens = static_cast<int>(prefill_batch);
  RETURN_IF_ERROR(r.Read("queue", o.queue));
  if (Status s = ParseQueue(o.queue).status(); !s.ok()) {
    return r.FieldError(*root.get("queue"), "queue", s.message());
  }
  RETURN_IF_ERROR(r.Read("search_serving", o.search_serving));
  RETURN_IF_ERROR(ReadIntArray(r, "tps", 1, 64, /*non_empty=*/false, o.tps));
  o.prompt_tokens = static_cast<int>(prompt);
  o.output_tokens = static_cast<int>(output);
  o.max_requests = static_cast<int>(maxr);
  o.slo.ttft_s = ttft_ms / 1000;
  o.slo.tpot_s = tpot_ms / 1000;
  o.slo.ttft_p50_s = p50a / 1000;
  o.slo.tpot_p50_s = p50b / 1000;
  return o;
}

StatusOr<std::string> RunInferencePlan(const InferenceOptions& o, bool as_json) {
  ASSIGN_OR_RETURN(ModelSpec model, FindModel(o.model));
  std::vector<GpuType> types;
  for (const std::string& s : o.gpu_types) {
    ASSIGN_OR_RETURN(GpuType g, ResolveGpuType(s));
    types.push_back(g);
  }
  if (types.empty()) return InvalidArgumentError("no GPU types given");
  RequestTrace trace;
  if (o.trace == "synthetic") {
    trace = SyntheticTrace(o.rate_per_s, o.duration_s, o.prompt_tokens, o.output_tokens, 1);
  } else {
    std::string path = o.trace;
    if (o.trace == "conv" || o.trace == "code") {
      path = o.shared_dir + "/traces/azure-llm-2023/AzureLLMInferenceTrace_" + o.trace + ".csv";
      if (!std::filesystem::exists(path)) {
        return NotFoundError("the Azure LLM trace is not at " + path +
                             " (../shared absent? pass --shared DIR, a CSV path, or --trace "
                             "synthetic)");
      }
    }
    ASSIGN_OR_RETURN(trace, LoadAzureTrace(path));
  }
  if (o.max_requests > 0 && static_cast<int>(trace.requests.size()) > o.max_requests) {
    trace.requests.resize(static_cast<size_t>(o.max_requests));
  }
  if (o.rate_scale != 1) trace = ScaleRate(trace, o.rate_scale);
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(LatencyTable table, Table(o.shared_dir, types, &notes));
  InferenceRequest req;
  req.model = model;
  req.trace = &trace;
  req.slo = o.slo;
  req.types = types;
  req.table = &table;
  req.tps = o.tps;
  req.allow_disaggregated = !o.colocated_only;
  ASSIGN_OR_RETURN(req.batching, ParseBatching(o.batching));
  req.token_budgets = o.token_budgets;
  ASSIGN_OR_RETURN(req.defer_late, ParseAdmission(o.admission));
  ASSIGN_OR_RETURN(req.shared_queue, ParseQueue(o.queue));
  req.prefill_batch_tokens = o.prefill_batch_tokens;
  req.search_serving = o.search_serving;
  ASSIGN_OR_RETURN(InferencePlan plan, PlanInference(req));
  for (const std::string& n : plan.notes) notes.push_back(n);
  ASSIGN_OR_RETURN(InferenceCostBound bound, BoundInferenceCost(req));
  // The chosen plan's policy (the given one unless searched).
  const bool searched = o.search_serving && plan.has_plan;
  const ServingConfig& chosen = plan.chosen.config;
  const bool defer_late = searched ? chosen.defer_late : req.defer_late;
  const bool shared_queue = searched ? chosen.shared_queue : req.shared_queue;
  const int prefill_batch = searched ? chosen.max_batch_tokens : req.prefill_batch_tokens;
  if (as_json) {
    json j = {{"model", model.key},
              {"trace", trace.origin},
              {"requests", trace.requests.size()},
              {"skipped_rows", trace.skipped},
              {"simulations", plan.simulations},
              {"serving",
               {{"admission", AdmissionName(defer_late)},
                {"queue", QueueName(shared_queue)},
                {"prefill_batch_tokens", prefill_batch},
                {"searched", o.search_serving}}},
              {"summary", plan.summary},
              {"notes", notes}};
    if (plan.has_plan) {
      j["chosen"] = ResultJson(plan.chosen);
      j["best_single_type"] = ResultJson(plan.best_single_type);
    }
    if (o.search_serving) {
      json trials = json::array();
      for (const ServingTrial& t : plan.trials) {
        trials.push_back({{"admission", AdmissionName(t.defer_late)},
                          {"queue", QueueName(t.shared_queue)},
                          {"prefill_batch_tokens", t.prefill_batch_tokens},
                          {"chosen_usd_per_mtoken", t.chosen_usd_per_mtoken},
                          {"best_single_type_usd_per_mtoken", t.single_type_usd_per_mtoken}});
      }
      j["serving_trials"] = trials;
    }
    j["cost_bound"] = BoundJson(bound, plan);
    return j.dump(2) + "\n";
  }
  std::string out = plan.summary + "\n" + BoundText(bound, plan) + "\n";
  out +=
      "Trace: " + trace.origin + ", " + std::to_string(trace.requests.size()) + " requests over " +
      Fmt("%.0f", trace.DurationS()) + " s" +
      (trace.skipped ? " (" + std::to_string(trace.skipped) + " rows with zero tokens skipped)"
                     : "") +
      "; " + std::to_string(plan.simulations) + " simulations; " +
      PolicyText(defer_late, shared_queue, prefill_batch) +
      (searched ? " (the cheapest of " + std::to_string(plan.trials.size()) + " policies)" : "") +
      ".\n";
  for (const ServingTrial& t : plan.trials) {
    out += "Policy " + PolicyText(t.defer_late, t.shared_queue, t.prefill_batch_tokens) + ": " +
           (t.chosen_usd_per_mtoken > 0
                ? Fmt("$%.3f", t.chosen_usd_per_mtoken) + " per million tokens, best single type " +
                      Fmt("$%.3f", t.single_type_usd_per_mtoken)
                : std::string("no plan meets the SLO")) +
           "\n";
  }
  for (const std::string& n : notes) out += "Note: " + n + "\n";
  return out;
}

StatusOr<std::string> RunTrainingPlan(std::string_view toml, std::string_view origin,
                                      const std::string& shared_dir, bool as_json,
                                      const StepLookup* lookup) {
  // The latency model's notes matter only for ranks it estimates.
  std::vector<std::string> table_notes, notes, measured_notes;
  ASSIGN_OR_RETURN(LatencyTable table, Table(shared_dir, DefaultGpuTypes(), &table_notes));
  ASSIGN_OR_RETURN(TrainingJob job,
                   ParseTrainingJob(toml, origin, &table, lookup, &measured_notes));
  ASSIGN_OR_RETURN(TrainingPlan plan, PlanTraining(job));
  int estimated = 0;
  for (const TrainRank& r : job.ranks) estimated += r.measured ? 0 : 1;
  if (estimated > 0) {
    notes = table_notes;
    notes.push_back(std::to_string(estimated) +
                    " rank time(s) estimated from the calibrated latency model (3x the forward "
                    "pass); give measured times for better plans");
  }
  notes.insert(notes.end(), measured_notes.begin(), measured_notes.end());
  if (as_json) {
    json ranks = json::array();
    for (size_t i = 0; i < plan.planned.ranks.size(); ++i) {
      const TrainRank& r = job.ranks[plan.planned.ranks[i]];
      ranks.push_back({{"name", r.name},
                       {"gpu_type", r.gpu_type},
                       {"unit_s", r.unit_s},
                       {"measured", r.measured},
                       {"planned", plan.planned.units[i]},
                       {"even", plan.even.units[i]}});
    }
    json j = {{"mode", job.mode == TrainMode::kData ? "data" : "pipeline"},
              {"step_s", plan.planned.step_s},
              {"even_step_s", plan.even.step_s},
              {"even_feasible", plan.even.feasible},
              {"homogeneous_type", plan.homogeneous_type},
              {"homogeneous_step_s", plan.homogeneous.step_s},
              {"bound_s", plan.bound_s},
              {"ranks", ranks},
              {"summary", plan.summary},
              {"notes", notes}};
    return j.dump(2) + "\n";
  }
  std::string out = plan.summary + "\n";
  for (const std::string& n : notes) out += "Note: " + n + "\n";
  return out;
}

StatusOr<std::string> RunRingPlan(std::string_view toml, std::string_view origin, bool as_json) {
  ASSIGN_OR_RETURN(RingTopology t, ParseRingTopology(toml, origin));
  ASSIGN_OR_RETURN(RingPlan plan, PlanRing(t));
  auto rj = [&](const RingResult& r) {
    json order = json::array();
    for (int i : r.order) order.push_back(t.ranks[i].name);
    return json{{"algorithm", r.algorithm},
                {"time_s", r.time_s},
                {"cross_cloud_bytes", r.cross_cloud_bytes},
                {"cross_cloud_edges", r.cross_cloud_edges},
                {"egress_usd", r.egress_usd},
                {"order", order}};
  };
  if (as_json) {
    json j = {{"chosen", rj(plan.chosen)},   {"naive", rj(plan.naive)},
              {"grouped", rj(plan.grouped)}, {"min_cross_cloud_bytes", plan.min_cross_cloud_bytes},
              {"clouds", plan.clouds},       {"summary", plan.summary}};
    if (plan.clouds >= 2) j["hierarchical"] = rj(plan.hierarchical);
    return j.dump(2) + "\n";
  }
  std::string out = plan.summary + "\nOrder:";
  for (int i : plan.chosen.order) out += " " + t.ranks[i].name;
  return out + "\n";
}

StatusOr<std::string> RunCalibrationReport(const std::string& shared_dir, bool as_json) {
  if (!std::filesystem::exists(shared_dir + "/traces")) {
    return NotFoundError("calibration data not found under " + shared_dir +
                         "/traces (pass --shared DIR)");
  }
  ASSIGN_OR_RETURN(CalData data, LoadCalibrationData(shared_dir));
  std::vector<LooError> errs = LeaveOneConfigOut(data.points);
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(LatencyTable table, Table(shared_dir, DefaultGpuTypes(), &notes));
  if (as_json) {
    json e = json::array();
    for (const LooError& x : errs) {
      e.push_back({{"dataset", x.dataset},
                   {"gpu_type", x.gpu_type},
                   {"phase", x.phase},
                   {"points", x.points},
                   {"median_rel_error", x.median_rel_error},
                   {"p90_rel_error", x.p90_rel_error},
                   {"derived", x.derived}});
    }
    json types = json::array();
    for (const auto& [k, l] : table.by_type) {
      types.push_back({{"gpu_type", k},
                       {"estimate", l.estimate},
                       {"expected_error", l.expected_error},
                       {"source", l.source}});
    }
    return json{{"leave_one_configuration_out", e}, {"gpu_types", types}, {"notes", notes}}.dump(
               2) +
           "\n";
  }
  std::string out = "Latency model, leave-one-configuration-out relative error (median / p90):\n";
  for (const LooError& x : errs) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "  %-10s %-10s %-8s %5d points  %5.1f%% / %5.1f%%%s\n",
                  x.dataset.c_str(), x.gpu_type.empty() ? "all" : x.gpu_type.c_str(),
                  x.phase.empty() ? "all" : x.phase.c_str(), x.points, 100 * x.median_rel_error,
                  100 * x.p90_rel_error, x.derived ? "  (derived from a published fit)" : "");
    out += buf;
  }
  out += "GPU types:\n";
  for (const auto& [k, l] : table.by_type) {
    out += "  " + k + ": " + l.source +
           (l.estimate ? Fmt(" (expected error %.0f%%)", 100 * l.expected_error) : "") + "\n";
    char buf[256];
    std::snprintf(
        buf, sizeof buf,
        "    prefill: %.1f ms + %.2fx compute + %.2fx attention + %.2fx memory; decode: %.1f "
        "ms + %.2fx compute + %.2fx memory (x = time at peak)\n",
        1000 * l.prefill.overhead_s, l.prefill.compute_scale, l.prefill.attention_scale,
        l.prefill.memory_scale, 1000 * l.decode.overhead_s, l.decode.compute_scale,
        l.decode.memory_scale);
    out += buf;
  }
  for (const std::string& n : notes) out += "Note: " + n + "\n";
  return out;
}

StatusOr<std::string> RunSplitwiseRepro(const std::string& trace_name,
                                        const std::string& shared_dir, int max_requests,
                                        int budget_h100_machines, const Slo& slo, Batching batching,
                                        bool as_json) {
  std::string path =
      shared_dir + "/traces/azure-llm-2023/AzureLLMInferenceTrace_" + trace_name + ".csv";
  if (!std::filesystem::exists(path)) {
    return NotFoundError("the Azure LLM trace is not at " + path + " (pass --shared DIR)");
  }
  ASSIGN_OR_RETURN(RequestTrace trace, LoadAzureTrace(path));
  if (max_requests > 0 && static_cast<int>(trace.requests.size()) > max_requests) {
    trace.requests.resize(static_cast<size_t>(max_requests));
  }
  std::vector<GpuType> types;
  for (const char* k : {"a100-80gb", "h100", "h100-pcap"}) {
    ASSIGN_OR_RETURN(GpuType g, ResolveGpuType(k));
    types.push_back(g);
  }
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(LatencyTable table, Table(shared_dir, types, &notes));
  ASSIGN_OR_RETURN(SplitwiseRepro r,
                   ReproduceSplitwise(trace, table, slo, budget_h100_machines, batching));
  if (as_json) {
    json d = json::array();
    for (const DesignResult& x : r.designs) {
      d.push_back({{"design", x.name},
                   {"prefill_machines", x.prefill_machines},
                   {"decode_machines", x.decode_machines},
                   {"cost_dgx_a100", x.cost},
                   {"rate_factor", x.rate_factor},
                   {"tokens_per_s", x.tokens_per_s}});
    }
    const DesignResult& cheap = r.cheapest_split_at_baseline_rate;
    return json{{"designs", d},
                {"throughput_ratio", r.throughput_ratio},
                {"cheapest_split_at_baseline_rate",
                 cheap.name.empty() ? json(nullptr)
                                    : json{{"design", cheap.name},
                                           {"prefill_machines", cheap.prefill_machines},
                                           {"decode_machines", cheap.decode_machines},
                                           {"cost_dgx_a100", cheap.cost}}},
                {"cost_ratio", r.cost_ratio},
                {"summary", r.summary},
                {"notes", notes}}
               .dump(2) +
           "\n";
  }
  std::string out = r.summary + "\n";
  for (const DesignResult& x : r.designs) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  %-16s %2d prefill + %2d decode machines, cost %5.1f DGX-A100: rate x%.2f, "
                  "%.0f tokens/s\n",
                  x.name.c_str(), x.prefill_machines, x.decode_machines, x.cost, x.rate_factor,
                  x.tokens_per_s);
    out += buf;
  }
  for (const std::string& n : notes) out += "Note: " + n + "\n";
  return out;
}

std::pair<int, std::string> HandlePlanRequest(std::string_view kind, std::string_view body,
                                              const std::string& shared_dir,
                                              const StepLookup* lookup) {
  StatusOr<std::string> out =
      NotFoundError("unknown planner '" + std::string(kind) + "' (inference, training, ring)");
  if (kind == "inference") {
    auto o = ParseInferenceOptions(body, "request body", shared_dir);
    out = o.ok() ? RunInferencePlan(*o, true) : StatusOr<std::string>(o.status());
  } else if (kind == "training") {
    out = RunTrainingPlan(body, "request body", shared_dir, true, lookup);
  } else if (kind == "ring") {
    out = RunRingPlan(body, "request body", true);
  }
  if (out.ok()) return {200, *out};
  int code = out.status().code() == StatusCode::kInvalidArgument ? 400
             : out.status().code() == StatusCode::kNotFound      ? 404
                                                                 : 500;
  return {code, json{{"error", out.status().message()}}.dump() + "\n"};
}

}  // namespace gpufleet::plan
