#include "cost/unit_cost.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "cost/cost_report.h"

namespace gpufleet::cost {
namespace {

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

StatusOr<std::vector<JobCost>> JobCosts(
    const Ledger& ledger, const std::map<std::string, WorkTotals>& work,
    const std::vector<std::pair<std::string, std::string>>& teams) {
  ASSIGN_OR_RETURN(CostReport r, BuildReport(ledger, {"workload", "team"}, teams));
  std::map<std::string, std::set<std::string>> pods;  // job -> its pods
  for (const auto& [id, h] : ledger.holders) {
    if (id > 0 && !h->pod.empty()) pods[WorkloadOf(*h)].insert(h->pod);
  }
  std::map<std::string, JobCost> jobs;
  for (const CostRow& row : r.rows) {
    if (row.key[0] == "(unallocated)") continue;
    JobCost& j = jobs[row.key[0]];
    j.workload = row.key[0];
    if (j.team.empty() || row.total_micro > j.micro_usd) j.team = row.key[1];
    j.micro_usd += row.total_micro;
    j.contention_micro += row.contention_micro;
    j.network_micro += row.network_micro;
    j.gpu_hours += row.gpu_hours;
    j.lost_gpu_hours += row.lost_gpu_hours;
  }
  std::vector<JobCost> out;
  for (auto& [name, j] : jobs) {
    auto it = work.find(name);
    if (it != work.end()) {
      j.steps = it->second.steps;
      j.tokens = it->second.tokens;
    } else {
      // Work labelled with another workload_name: meet it through the pods.
      for (const std::string& pod : pods[name]) {
        auto p = work.find(kPodKeyPrefix + pod);
        if (p == work.end()) continue;
        j.steps += p->second.steps;
        j.tokens += p->second.tokens;
      }
    }
    const double usd = static_cast<double>(j.micro_usd) / 1e6;
    if (j.steps > 0) j.usd_per_step = usd / static_cast<double>(j.steps);
    if (j.tokens > 0) j.usd_per_million_tokens = usd / j.tokens * 1e6;
    out.push_back(std::move(j));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const JobCost& a, const JobCost& b) { return a.micro_usd > b.micro_usd; });
  return out;
}

std::vector<UnitCostChange> UnitCostChanges(const std::vector<JobCost>& baseline,
                                            const std::vector<JobCost>& recent) {
  std::map<std::string, const JobCost*> base;
  for (const JobCost& j : baseline) base[j.workload] = &j;
  std::vector<UnitCostChange> out;
  for (const JobCost& r : recent) {
    auto it = base.find(r.workload);
    if (it == base.end()) continue;
    const JobCost& b = *it->second;
    UnitCostChange c;
    c.workload = r.workload;
    c.team = r.team;
    if (r.steps >= kJumpMinSteps && b.steps >= kJumpMinSteps) {
      c.unit = "step";
      c.baseline_usd_per_unit = b.usd_per_step;
      c.recent_usd_per_unit = r.usd_per_step;
    } else if (r.tokens >= kJumpMinTokens && b.tokens >= kJumpMinTokens) {
      c.unit = "million tokens";
      c.baseline_usd_per_unit = b.usd_per_million_tokens;
      c.recent_usd_per_unit = r.usd_per_million_tokens;
    } else {
      continue;
    }
    if (c.baseline_usd_per_unit <= 0) continue;
    c.ratio = c.recent_usd_per_unit / c.baseline_usd_per_unit;
    c.jumped = c.ratio >= kJumpRatio;
    out.push_back(std::move(c));
  }
  return out;
}

bool JobsWanted(const std::vector<std::string>& by, bool asked) {
  return asked || std::find(by.begin(), by.end(), "workload") != by.end();
}

std::string WithJobs(const std::string& report_json, const std::vector<JobCost>& jobs) {
  using nlohmann::json;
  json out = json::parse(report_json, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return report_json;
  auto usd = [](int64_t micro) { return static_cast<double>(micro) / 1e6; };
  auto known = [](double v) { return v < 0 ? json(nullptr) : json(v); };
  json list = json::array();
  for (const JobCost& j : jobs) {
    list.push_back({{"workload", j.workload},
                    {"team", j.team},
                    {"cost_usd", usd(j.micro_usd)},
                    {"contention_usd", usd(j.contention_micro)},
                    {"network_usd", usd(j.network_micro)},
                    {"gpu_hours", j.gpu_hours},
                    {"lost_gpu_hours", j.lost_gpu_hours},
                    {"steps", j.steps},
                    {"tokens", j.tokens},
                    {"usd_per_step", known(j.usd_per_step)},
                    {"usd_per_million_tokens", known(j.usd_per_million_tokens)}});
  }
  out["jobs"] = list;
  return out.dump(2) + "\n";
}

std::string RenderJobMetrics(const std::vector<JobCost>& jobs, const std::string& window) {
  std::string out =
      "# HELP gpu_workload_cost_usd What the cost ledger charged a workload in the window "
      "(basis, idle handed to it, net contention, network).\n"
      "# TYPE gpu_workload_cost_usd gauge\n";
  std::string step =
      "# HELP gpu_workload_cost_usd_per_step A workload's cost in the window over the steps it "
      "reported (gpu_workload_step_duration_seconds points).\n"
      "# TYPE gpu_workload_cost_usd_per_step gauge\n";
  std::string token =
      "# HELP gpu_workload_cost_usd_per_million_tokens A workload's cost in the window over the "
      "tokens it reported (increase of gpu_workload_tokens_total), per million.\n"
      "# TYPE gpu_workload_cost_usd_per_million_tokens gauge\n";
  char buf[64];
  for (const JobCost& j : jobs) {
    std::string labels = "{workload=\"" + Escape(j.workload) + "\",team=\"" + Escape(j.team) +
                         "\",window=\"" + Escape(window) + "\"}";
    std::snprintf(buf, sizeof buf, " %.6f\n", static_cast<double>(j.micro_usd) / 1e6);
    out += "gpu_workload_cost_usd" + labels + buf;
    if (j.usd_per_step >= 0) {
      std::snprintf(buf, sizeof buf, " %.9g\n", j.usd_per_step);
      step += "gpu_workload_cost_usd_per_step" + labels + buf;
    }
    if (j.usd_per_million_tokens >= 0) {
      std::snprintf(buf, sizeof buf, " %.9g\n", j.usd_per_million_tokens);
      token += "gpu_workload_cost_usd_per_million_tokens" + labels + buf;
    }
  }
  return out + step + token;
}

}  // namespace gpufleet::cost
