#include "place/placement_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace gpufleet::place {
namespace {

double CostPerHour(const NodeSpec& n, const WorkloadRequest& req) {
  return n.price_usd_per_gpu_hour * static_cast<double>(req.total_gpu_milli()) / kMilliPerGpu;
}

// Rejections grouped by reason, reasons in enum order.
std::map<RejectReason, std::vector<const Rejection*>> ByReason(const PlacementReport& r) {
  std::map<RejectReason, std::vector<const Rejection*>> m;
  for (const Rejection& x : r.rejections) m[x.reason].push_back(&x);
  return m;
}

// Scores for people: six significant digits (JSON keeps them all).
std::string ShortScore(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

}  // namespace

TargetWorkload DefaultPlacementTarget() {
  // cpu_milli, gpu_milli, gpu_count, models, weight, count, memory_mib
  return TargetWorkload::FromShapes({
      {4000, 500, 1, "", 0.25, 25, 16384},
      {8000, 1000, 1, "", 0.30, 30, 65536},
      {16000, 1000, 2, "", 0.15, 15, 131072},
      {32000, 1000, 4, "", 0.15, 15, 262144},
      {64000, 1000, 8, "", 0.10, 10, 524288},
      {4000, 0, 0, "", 0.05, 5, 16384},
  });
}

StatusOr<std::unique_ptr<PlacementPolicy>> MakePlacementPolicy(std::string_view spec) {
  return MakePolicy(spec, DefaultPlacementTarget());
}

std::vector<int> GpuIndices(GpuMask mask) {
  std::vector<int> v;
  for (int g = 0; g < kMaxGpusPerNode; ++g) {
    if (mask & (GpuMask{1} << g)) v.push_back(g);
  }
  return v;
}

PlacementReport ExplainPlacement(const Cluster& cluster, const WorkloadRequest& req,
                                 PlacementPolicy& policy, const SoftwareCompatHook& compat) {
  PlacementReport report;
  for (int n = 0; n < cluster.size(); ++n) {
    Feasibility f = CheckFeasible(cluster.spec(n), cluster.state(n), req, compat);
    if (!f.ok()) report.rejections.push_back({n, f.reason, std::move(f.detail)});
  }
  // Each feasible node is scored once (the random policy draws per call), by
  // the same rule as ChooseNode with ties ranked in node order.
  Rng rng(1);
  policy.BeginRequest(cluster, req, rng);
  size_t r = 0;
  for (int n = 0; n < cluster.size(); ++n) {
    if (r < report.rejections.size() && report.rejections[r].node == n) {
      ++r;
      continue;
    }
    report.feasible.push_back({n, policy.Score(cluster, n, req)});
  }
  if (report.feasible.empty()) return report;
  std::stable_sort(report.feasible.begin(), report.feasible.end(),
                   [](const ScoredNode& a, const ScoredNode& b) { return a.score > b.score; });
  report.chosen = report.feasible.front();
  report.gpus = policy.ChooseGpus(cluster, report.chosen->node, req, rng);
  return report;
}

std::string PlacementReportJson(const Cluster& cluster, const WorkloadRequest& req,
                                std::string_view policy, const PlacementReport& report,
                                int max_alternatives) {
  nlohmann::json j;
  j["request"] = req.name;
  j["policy"] = std::string(policy);
  j["placed"] = report.chosen.has_value();
  if (report.chosen) {
    const NodeSpec& n = cluster.spec(report.chosen->node);
    j["node"] = n.name;
    j["gpus"] = GpuIndices(report.gpus);
    j["score"] = report.chosen->score;
    j["cost_usd_per_hour"] = CostPerHour(n, req);
  } else {
    j["node"] = nullptr;
    j["gpus"] = nlohmann::json::array();
    j["score"] = nullptr;
  }
  nlohmann::json alts = nlohmann::json::array();
  for (size_t i = 1; i < report.feasible.size() && static_cast<int>(i) <= max_alternatives; ++i) {
    const NodeSpec& n = cluster.spec(report.feasible[i].node);
    alts.push_back({{"node", n.name},
                    {"score", report.feasible[i].score},
                    {"cost_usd_per_hour", CostPerHour(n, req)}});
  }
  j["alternatives"] = alts;
  j["feasible_nodes"] = report.feasible.size();
  nlohmann::json rej = nlohmann::json::array();
  for (const Rejection& x : report.rejections) {
    rej.push_back({{"node", cluster.spec(x.node).name},
                   {"reason", std::string(RejectReasonName(x.reason))},
                   {"detail", x.detail}});
  }
  j["rejections"] = rej;
  nlohmann::json by = nlohmann::json::object();
  for (const auto& [reason, list] : ByReason(report)) {
    nlohmann::json names = nlohmann::json::array();
    for (const Rejection* x : list) names.push_back(cluster.spec(x->node).name);
    by[std::string(RejectReasonName(reason))] = names;
  }
  j["rejected_by_reason"] = by;
  // Node names and details come from files: never let bad UTF-8 throw.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string PlacementReportText(const Cluster& cluster, const WorkloadRequest& req,
                                std::string_view policy, const PlacementReport& report,
                                int max_alternatives) {
  std::string out;
  std::string name = req.name.empty() ? "request" : req.name;
  if (report.chosen) {
    const NodeSpec& n = cluster.spec(report.chosen->node);
    out += name + ": placed on " + n.name;
    std::vector<int> gpus = GpuIndices(report.gpus);
    if (!gpus.empty()) {
      out += " GPUs ";
      for (size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
    }
    out += " (policy " + std::string(policy) + ", score " + ShortScore(report.chosen->score);
    if (n.price_usd_per_gpu_hour > 0) out += ", $" + FormatDouble(CostPerHour(n, req)) + "/h";
    out += ")\n";
    if (report.feasible.size() > 1) {
      out += "alternatives:\n";
      for (size_t i = 1; i < report.feasible.size() && static_cast<int>(i) <= max_alternatives;
           ++i) {
        out += "  " + cluster.spec(report.feasible[i].node).name + "  score " +
               ShortScore(report.feasible[i].score) + "\n";
      }
      if (static_cast<int>(report.feasible.size()) - 1 > max_alternatives) {
        out += "  ... " + std::to_string(report.feasible.size() - 1 - max_alternatives) +
               " more feasible\n";
      }
    }
  } else {
    out += name + ": no node fits (" + std::to_string(cluster.size()) + " nodes, policy " +
           std::string(policy) + ")\n";
  }
  if (!report.rejections.empty()) {
    out += "rejected:\n";
    for (const auto& [reason, list] : ByReason(report)) {
      out += "  " + std::string(RejectReasonName(reason)) + " (" + std::to_string(list.size()) +
             "):\n";
      for (const Rejection* x : list) {
        out += "    " + cluster.spec(x->node).name + ": " + x->detail + "\n";
      }
    }
  }
  return out;
}

}  // namespace gpufleet::place
