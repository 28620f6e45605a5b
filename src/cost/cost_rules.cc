#include "cost/cost_rules.h"

#include <utility>
#include <vector>

namespace gpufleet::cost {
namespace {

constexpr const char* kDevice = "node, gpu_uuid, partition_id";
constexpr const char* kHolder =
    "workload_namespace, workload_pod, workload_container, workload_name, workload_team, "
    "workload_slurm_job, workload_slurm_user, workload_slurm_account";

std::string Dev() { return kDevice; }
std::string DevHolder() { return std::string(kDevice) + ", " + kHolder; }

struct Rule {
  std::string record;
  std::string expr;
};

std::vector<Rule> Rules() {
  const std::string dev = Dev(), dh = DevHolder();
  const std::string holder_util = "max by (" + dh +
                                  ") (avg_over_time(gpu_process_utilization_ratio{"
                                  "workload_pod!=\"\"}[1m]) or avg_over_time("
                                  "gpu_process_utilization_ratio{workload_slurm_job!=\"\"}[1m]))";
  // The device's mean readings of the minute, clamped to [0, 1].
  auto mean = [&](const char* metric) {
    return "clamp(max by (" + dev + ") (avg_over_time(" + metric + "[1m])), 0, 1)";
  };
  const std::string util = mean("gpu_utilization_ratio");
  const std::string bw = mean("gpu_memory_bandwidth_utilization_ratio");
  return {
      {"gpufleet:device_metered:bool",
       "max by (" + dev + ") (count_over_time(gpu_up[1m]) > bool 0)"},
      {"gpufleet:device_cost_usd_per_hour",
       "(max by (" + dev + ") (gpufleet_cost_device_usd_per_hour)"
       " + on (" + dev + ") (max by (" + dev + ") (rate(gpu_energy_joules_total[1m])) / 1000"
       " * on (" + dev + ") max by (" + dev + ") (gpufleet_cost_device_usd_per_kwh))"
       " or max by (" + dev + ") (gpufleet_cost_device_usd_per_hour))"
       " * on (" + dev + ") gpufleet:device_metered:bool"},
      {"gpufleet:holder_present:bool",
       "max by (" + dh + ") (max_over_time(gpu_workload_info{workload_pod!=\"\"}[1m])"
       " or max_over_time(gpu_workload_info{workload_slurm_job!=\"\"}[1m])) > 0"},
      {"gpufleet:holder_weight:ratio",
       "(" + holder_util + " / on (" + dev + ") group_left() (sum by (" + dev + ") (" +
           holder_util + ") > 0))"
       " or (gpufleet:holder_present:bool / on (" + dev + ") group_left() count by (" + dev +
           ") (gpufleet:holder_present:bool))"},
      {"gpufleet:holder_cost_usd_per_hour",
       "gpufleet:holder_weight:ratio * on (" + dev +
           ") group_left() gpufleet:device_cost_usd_per_hour"},
      {"gpufleet:device_idle_cost_usd_per_hour",
       "gpufleet:device_cost_usd_per_hour unless on (" + dev + ") gpufleet:holder_present:bool"},
      // Usage bases (docs/cost.md): the share of the cost a minute's readings
      // charge; a minute without a reading counts as fully used.
      {"gpufleet:device_usage:ratio",
       util + " or on (" + dev + ") gpufleet:device_metered:bool"},
      {"gpufleet:device_usage_mean:ratio",
       "clamp((" + util + " + on (" + dev + ") " + bw + ") / 2, 0, 1) or " + util + " or on (" +
           dev + ") gpufleet:device_metered:bool"},
      {"gpufleet:holder_usage_cost_usd_per_hour",
       "gpufleet:holder_cost_usd_per_hour * on (" + dev +
           ") group_left() gpufleet:device_usage:ratio"},
      {"gpufleet:holder_usage_mean_cost_usd_per_hour",
       "gpufleet:holder_cost_usd_per_hour * on (" + dev +
           ") group_left() gpufleet:device_usage_mean:ratio"},
      {"namespace:gpufleet_cost_usd_per_hour:sum",
       "sum by (workload_namespace) (gpufleet:holder_cost_usd_per_hour)"},
      {"team:gpufleet_cost_usd_per_hour:sum",
       "sum by (workload_team) (gpufleet:holder_cost_usd_per_hour)"},
      {"namespace:gpufleet_usage_cost_usd_per_hour:sum",
       "sum by (workload_namespace) (gpufleet:holder_usage_cost_usd_per_hour)"},
      {"team:gpufleet_usage_cost_usd_per_hour:sum",
       "sum by (workload_team) (gpufleet:holder_usage_cost_usd_per_hour)"},
      {"namespace:gpufleet_usage_mean_cost_usd_per_hour:sum",
       "sum by (workload_namespace) (gpufleet:holder_usage_mean_cost_usd_per_hour)"},
      {"team:gpufleet_usage_mean_cost_usd_per_hour:sum",
       "sum by (workload_team) (gpufleet:holder_usage_mean_cost_usd_per_hour)"},
      {"slurm_account:gpufleet_cost_usd_per_hour:sum",
       "sum by (workload_slurm_account) (gpufleet:holder_cost_usd_per_hour{"
       "workload_slurm_job!=\"\"})"},
  };
}

// A label name as Prometheus accepts it.
bool IsLabelName(const std::string& s) {
  if (s.empty() || s.rfind("__", 0) == 0) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

StatusOr<std::string> ExportServingTokenRules(const std::string& pod_label) {
  if (!IsLabelName(pod_label)) {
    return InvalidArgumentError("--pod-label '" + pod_label +
                                "' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not __*)");
  }
  const std::string& pod = pod_label;
  // Each counter: one value per engine (ranks of one engine see the same
  // tokens), marked with its name so that `or` keeps prompt and generation
  // apart, on series that name their pod.
  std::string terms;
  for (const char* engine : {"vllm", "sglang"}) {
    for (const char* kind : {"prompt", "generation"}) {
      const std::string metric = std::string(engine) + ":" + kind + "_tokens_total";
      if (!terms.empty()) terms += " or ";
      terms += "label_replace(max without (tp_rank, pp_rank) (" + metric + "{" + pod +
               "!=\"\"}), \"token_counter\", \"" + metric + "\", \"\", \"\")";
    }
  }
  return "# gpufleet serving token rules (gpufleet rules export --serving; "
         "src/cost/cost_rules.h).\n"
         "# gpu_workload_tokens_total per serving pod from vLLM / SGLang token counters;\n"
         "# remote-write it to gpufleet server for $/Mtoken (docs/cost.md).\n"
         "groups:\n"
         "  - name: gpufleet-serving-tokens\n"
         "    interval: 1m\n"
         "    rules:\n"
         "      - record: gpu_workload_tokens_total\n"
         "        expr: 'sum by (workload_pod) (label_replace(" +
         terms + ", \"workload_pod\", \"$1\", \"" + pod + "\", \"(.+)\"))'\n";
}

std::string ExportCostRules() {
  std::string out =
      "# gpufleet cost recording rules (gpufleet rules export --cost; src/cost/cost_rules.h).\n"
      "# Needs the price series gpufleet server forwards to this store once a minute\n"
      "# (gpufleet_cost_device_usd_per_hour, gpufleet_cost_device_usd_per_kwh).\n"
      "# Dollars of a period: sum_over_time(<rule>[period]) / 60.\n"
      "groups:\n"
      "  - name: gpufleet-cost\n"
      "    interval: 1m\n"
      "    rules:\n";
  for (const Rule& r : Rules()) {
    out += "      - record: " + r.record + "\n        expr: '" + r.expr + "'\n";
  }
  return out;
}

}  // namespace gpufleet::cost
