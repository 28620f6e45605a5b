#include "place/objective_choice.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "place/gavel_colocation_model.h"
#include "place/gavel_throughput_model.h"
#include "schema/hardware_catalog.h"

namespace gpufleet::place {
namespace {

std::string Fmt(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string GroupName(const ObjectiveOption& o) {
  std::string s = o.gpu_model;
  if (!o.cloud.empty()) s += " in " + o.cloud;
  if (!o.region.empty()) s += "/" + o.region;
  return s;
}

}  // namespace

StatusOr<ObjectiveDecision> PlaceByObjective(const Cluster& cluster, const WorkloadRequest& req,
                                             const GavelThroughputs& table,
                                             const PriceLookup& prices, PlacementPolicy& policy,
                                             PlacementReport& report) {
  ObjectiveDecision d;
  ASSIGN_OR_RETURN(d.objective, ParseGpuObjective(req.objective));
  d.deadline_hours = req.deadline_hours;
  const int job = table.FindJobType(req.job_type, req.gpu_count);
  if (job < 0) {
    return InvalidArgumentError("job_type: \"" + req.job_type + "\" at " +
                                std::to_string(req.gpu_count) +
                                " GPU(s) is not a job type of the throughput table");
  }

  // Group the feasible nodes, in policy order.
  std::map<std::tuple<std::string, std::string, std::string>, int> index;
  std::vector<ObjectiveOption> groups;
  for (const ScoredNode& s : report.feasible) {
    const NodeSpec& n = cluster.spec(s.node);
    auto key = std::make_tuple(n.gpu_model, n.cloud, n.region);
    auto [it, fresh] = index.try_emplace(key, static_cast<int>(groups.size()));
    if (fresh) {
      ObjectiveOption o;
      o.gpu_model = n.gpu_model, o.cloud = n.cloud, o.region = n.region;
      groups.push_back(o);
    }
    groups[it->second].nodes.push_back(s.node);
  }

  std::vector<std::string> models;
  for (const ObjectiveOption& o : groups) models.push_back(o.gpu_model);
  ASSIGN_OR_RETURN(std::unique_ptr<CatalogThroughput> model,
                   CatalogThroughput::Create(&table, models, req.gpu_count));
  ColocationModel coloc(&table);

  double best_efficiency = 0;
  std::vector<double> opt_peak;  // fp32 peak per option
  for (size_t g = 0; g < groups.size(); ++g) {
    ObjectiveOption& o = groups[g];
    StatusOr<ThroughputEstimate> est = model->Estimate(job, o.gpu_model);
    if (!est.ok()) {
      d.no_throughput.push_back(GroupName(o) + ": " + est.status().message());
      continue;
    }
    const ThroughputEstimate& e = *est;
    const double peak = ResolveGpuModel(o.gpu_model)->peak_fp32_flops;
    o.steps_per_s = e.steps_per_s;
    o.basis = e.basis;
    o.typical_relative_error = e.typical_relative_error;
    o.duration_hours = req.steps / e.steps_per_s / 3600;
    StatusOr<GpuHourQuote> q = prices(cluster.spec(o.nodes.front()));
    if (q.ok()) {
      o.priced = true;
      o.price = *q;
      o.usd_per_job = o.duration_hours * req.gpu_count * q->usd_per_gpu_hour;
    } else {
      o.price_error = q.status().message();
    }
    if (peak > 0) best_efficiency = std::max(best_efficiency, e.steps_per_s / peak);
    o.meets_deadline = d.objective != GpuObjective::kCheapestMeetingDeadline ||
                       o.duration_hours <= req.deadline_hours;
    d.options.push_back(o);
    opt_peak.push_back(peak);
  }
  // Effective TFLOP/s: peak x efficiency relative to the job's best type.
  for (size_t i = 0; i < d.options.size(); ++i) {
    ObjectiveOption& o = d.options[i];
    const double peak = opt_peak[i];
    const double eff =
        best_efficiency > 0 && peak > 0 ? (o.steps_per_s / peak) / best_efficiency : 0;
    const double tflops = peak / 1e12 * eff;
    if (o.priced && tflops > 0)
      o.usd_per_effective_tflop = o.price.usd_per_gpu_hour / (tflops * 3600);
  }

  // Pick.
  const bool by_cost = d.objective != GpuObjective::kFastest;
  for (size_t i = 0; i < d.options.size(); ++i) {
    const ObjectiveOption& o = d.options[i];
    if (!o.meets_deadline || (by_cost && !o.priced)) continue;
    if (d.chosen < 0) {
      d.chosen = static_cast<int>(i);
      continue;
    }
    const ObjectiveOption& b = d.options[d.chosen];
    if (by_cost ? o.usd_per_job < b.usd_per_job : o.duration_hours < b.duration_hours) {
      d.chosen = static_cast<int>(i);
    }
  }
  const auto hours = [](double h) { return Fmt("%.1f h", h); };
  const auto money = [](double usd) { return Fmt("$%.2f", usd); };
  if (d.chosen < 0) {
    report.chosen.reset();
    report.gpus = 0;
    if (d.options.empty()) {
      d.reason = "no feasible GPU type has a throughput estimate for " + req.job_type;
    } else if (by_cost && d.objective != GpuObjective::kCheapestMeetingDeadline) {
      d.reason = "no feasible GPU type could be priced";
    } else {
      const auto f = std::min_element(
          d.options.begin(), d.options.end(),
          [](const auto& a, const auto& b) { return a.duration_hours < b.duration_hours; });
      d.reason = "no priced GPU type meets the " + hours(req.deadline_hours) +
                 " deadline; the fastest, " + GroupName(*f) + ", needs " + hours(f->duration_hours);
    }
    return d;
  }

  // Re-rank the report: the chosen group first, policy order kept.
  ObjectiveOption& c = d.options[d.chosen];
  std::stable_partition(report.feasible.begin(), report.feasible.end(), [&](const ScoredNode& s) {
    return std::find(c.nodes.begin(), c.nodes.end(), s.node) != c.nodes.end();
  });
  report.chosen = report.feasible.front();
  Rng rng(1);
  policy.BeginRequest(cluster, req, rng);
  report.gpus = policy.ChooseGpus(cluster, report.chosen->node, req, rng);

  // Co-location on the chosen device(s).
  const NodeState& st = cluster.state(report.chosen->node);
  bool shared = false;
  for (int g : GpuIndices(report.gpus)) shared = shared || st.gpu_free_milli[g] < kMilliPerGpu;
  if (!shared) {
    c.colocation_penalty = 0;
    c.colocation_basis = "the device is free: no neighbour";
  } else {
    const int tw = model->NearestTableWorker(c.gpu_model);
    const bool same = tw >= 0 && model->Estimate(job, c.gpu_model).ok() &&
                      model->Estimate(job, c.gpu_model)->basis == ThroughputBasis::kMeasured;
    std::vector<double> kept;
    bool predicted = false;
    for (int b = 0; b < table.num_job_types() && tw >= 0; ++b) {
      if (b == job || table.job_types()[b].scale_factor != req.gpu_count) continue;
      if (table.Isolated(b, tw) <= 0) continue;
      const ColocationEstimate e = coloc.Estimate(tw, job, b);
      if (!e.feasible) continue;
      kept.push_back(e.self_norm);
      predicted = predicted || e.predicted;
    }
    if (!kept.empty()) {
      c.colocation_penalty = 1 - Median(kept);
      c.colocation_basis = "device shared with an unknown job: median over " +
                           std::to_string(kept.size()) + " job types on " + table.workers()[tw] +
                           (same ? "" : " (nearest measured GPU type)") +
                           (predicted ? ", some pairs predicted" : ", measured pairs");
    } else {
      c.colocation_basis = "device shared; no co-location data for " + req.job_type;
    }
  }

  const auto fastest = std::min_element(
      d.options.begin(), d.options.end(),
      [](const auto& a, const auto& b) { return a.duration_hours < b.duration_hours; });
  const ObjectiveOption* cheapest = nullptr;
  for (const ObjectiveOption& o : d.options) {
    if (o.priced && (cheapest == nullptr || o.usd_per_job < cheapest->usd_per_job)) cheapest = &o;
  }
  const std::string cost = c.priced ? money(c.usd_per_job) : "unpriced";
  if (!by_cost) {
    d.reason = GroupName(c) + " is fastest (" + hours(c.duration_hours) + ", " + cost + ")";
    if (cheapest != nullptr && cheapest != &c) {
      d.reason += "; " + GroupName(*cheapest) + " would cost " + money(cheapest->usd_per_job) +
                  " but take " + hours(cheapest->duration_hours);
    }
  } else {
    d.reason = GroupName(c) + " is cheapest per job" +
               (d.objective == GpuObjective::kCheapestMeetingDeadline
                    ? " within the " + hours(req.deadline_hours) + " deadline"
                    : std::string()) +
               " (" + cost + ", " + hours(c.duration_hours) + ")";
    if (&*fastest != &c) {
      d.reason += "; " + GroupName(*fastest) + " would take " + hours(fastest->duration_hours) +
                  (fastest->priced ? " for " + money(fastest->usd_per_job) : std::string());
    }
  }
  if (c.basis != ThroughputBasis::kMeasured) {
    d.reason += " [throughput " + std::string(ThroughputBasisName(c.basis)) +
                ", typically off by " + Fmt("%.0f%%", 100 * c.typical_relative_error) + "]";
  }
  return d;
}

std::string ObjectiveDecisionJson(const ObjectiveDecision& d) {
  static const char* kNames[] = {"fastest", "cheapest-per-job", "cheapest-meeting-deadline"};
  nlohmann::json j;
  j["objective"] = kNames[static_cast<int>(d.objective)];
  if (d.objective == GpuObjective::kCheapestMeetingDeadline) j["deadline_hours"] = d.deadline_hours;
  j["chosen"] =
      d.chosen < 0 ? nlohmann::json(nullptr) : nlohmann::json(d.options[d.chosen].gpu_model);
  j["reason"] = d.reason;
  nlohmann::json opts = nlohmann::json::array();
  const auto num = [](double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
  for (size_t i = 0; i < d.options.size(); ++i) {
    const ObjectiveOption& o = d.options[i];
    nlohmann::json x = {{"gpu_model", o.gpu_model},
                        {"cloud", o.cloud},
                        {"region", o.region},
                        {"chosen", static_cast<int>(i) == d.chosen},
                        {"nodes", o.nodes.size()},
                        {"steps_per_s", o.steps_per_s},
                        {"throughput_basis", ThroughputBasisName(o.basis)},
                        {"predicted", o.basis != ThroughputBasis::kMeasured},
                        {"typical_relative_error", o.typical_relative_error},
                        {"duration_hours", o.duration_hours},
                        {"usd_per_job", num(o.usd_per_job)},
                        {"usd_per_effective_tflop", num(o.usd_per_effective_tflop)},
                        {"colocation_penalty", num(o.colocation_penalty)},
                        {"meets_deadline", o.meets_deadline}};
    if (!o.colocation_basis.empty()) x["colocation_basis"] = o.colocation_basis;
    if (o.priced) {
      x["price"] = {{"usd_per_gpu_hour", o.price.usd_per_gpu_hour},
                    {"source", o.price.source},
                    {"date", o.price.date},
                    {"basis", o.price.basis}};
    } else {
      x["price"] = {{"error", o.price_error}};
    }
    opts.push_back(std::move(x));
  }
  j["options"] = std::move(opts);
  j["no_throughput"] = d.no_throughput;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string PlacementJsonWithObjective(const std::string& placement_json,
                                       const ObjectiveDecision& d) {
  nlohmann::json j = nlohmann::json::parse(placement_json, nullptr, false);
  j["objective"] = nlohmann::json::parse(ObjectiveDecisionJson(d));
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string ObjectiveDecisionText(const ObjectiveDecision& d) {
  std::string out = "objective: " + d.reason + "\n";
  char line[512];
  std::snprintf(line, sizeof(line), "  %-34s %10s %-20s %10s %9s %9s %s\n", "candidate", "duration",
                "throughput", "$/job", "$/ePFLOP", "coloc", "price source");
  out += line;
  for (size_t i = 0; i < d.options.size(); ++i) {
    const ObjectiveOption& o = d.options[i];
    const std::string name = (static_cast<int>(i) == d.chosen ? "* " : "  ") + GroupName(o);
    const std::string basis = o.basis == ThroughputBasis::kMeasured
                                  ? "measured"
                                  : Fmt("predicted +-%.0f%%", 100 * o.typical_relative_error);
    // The fixed columns; the price source (any length) is appended after them.
    std::snprintf(
        line, sizeof(line), "  %-34s %8.1f h %-20s %10s %9s %9s ", name.c_str(), o.duration_hours,
        basis.c_str(), o.priced ? Fmt("$%.2f", o.usd_per_job).c_str() : "-",
        o.usd_per_effective_tflop >= 0 ? Fmt("$%.3f", 1000 * o.usd_per_effective_tflop).c_str()
                                       : "-",
        o.colocation_penalty >= 0 ? Fmt("%.0f%%", 100 * o.colocation_penalty).c_str() : "-");
    out += line;
    out += o.priced ? o.price.source + (o.price.date.empty() ? "" : " (" + o.price.date + ")")
                    : "unpriced: " + o.price_error;
    out += "\n";
  }
  for (const std::string& s : d.no_throughput) out += "  no estimate: " + s + "\n";
  return out;
}

}  // namespace gpufleet::place
