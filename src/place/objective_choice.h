// Placement by objective: among the inventory's feasible nodes, grouped by
// (GPU model, cloud, region), which group is fastest, cheapest per finished
// job, or cheapest while meeting a deadline; then the placement policy picks
// the node and GPUs inside the chosen group. Used by `gpufleet place` and
// POST /api/v1/place when the request has an `objective` (spec_file.h).
//
// Per candidate group:
//  - throughput of the request's job_type (a job type of Gavel's table at
//    scale factor = the request's gpus): measured when the GPU model is one
//    of the table's (k80, p100, v100); otherwise predicted by the throughput
//    model (gavel_throughput_model.h) from the hardware catalog's peaks,
//    with the basis and that basis's typical error from validation;
//  - duration = steps / throughput; $/job = duration x gpus x price per
//    GPU-hour; cost per effective TFLOP as in gavel_choice.h;
//  - price per GPU-hour from a PriceLookup (the caller's: the cost
//    component's price book, with its source and date);
//  - co-location penalty (1 - throughput kept): 0 when the chosen device is
//    free (no neighbour); on a shared device the neighbour's job is unknown
//    to the inventory, so the median penalty over the table's job types of
//    the same scale factor, measured on the nearest table GPU type (fp32
//    peak) to the candidate's; -1 when nothing is known.
//
// A group that cannot be priced is listed (usd fields -1) but never chosen
// under a cost objective. Without an objective nothing here runs and
// placement is the policy's alone.
//
// Thread safety: pure functions of their inputs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "place/catalog_throughput.h"
#include "place/gavel_choice.h"
#include "place/gavel_data.h"
#include "place/placement_report.h"

namespace gpufleet::place {

struct GpuHourQuote {
  double usd_per_gpu_hour = 0;
  std::string source;  // catalog file @ commit, a site file:line, or the inventory
  std::string date;    // snapshot date ("" when unknown)
  std::string basis;   // how the figure was made
};
// Price of one GPU-hour on `node`; an error leaves the group unpriced.
using PriceLookup = std::function<StatusOr<GpuHourQuote>(const NodeSpec& node)>;

struct ObjectiveOption {
  std::string gpu_model, cloud, region;
  std::vector<int> nodes;  // feasible nodes of the group, policy order
  double steps_per_s = 0;
  ThroughputBasis basis = ThroughputBasis::kUnknown;
  double typical_relative_error = 0;  // of the throughput; 0 when measured
  double duration_hours = 0;
  bool priced = false;
  GpuHourQuote price;       // when priced
  std::string price_error;  // when not
  double usd_per_job = -1;
  double usd_per_effective_tflop = -1;
  double colocation_penalty = -1;  // on the chosen device for the chosen group
  std::string colocation_basis;
  bool meets_deadline = true;
};

struct ObjectiveDecision {
  GpuObjective objective = GpuObjective::kFastest;
  double deadline_hours = 0;
  std::vector<ObjectiveOption> options;  // feasible groups with a throughput
  int chosen = -1;                       // index in options; -1 = none qualifies
  std::string reason;
  std::vector<std::string> no_throughput;  // groups the model cannot estimate
};

// Decides the group and re-ranks `report` (from ExplainPlacement with the
// same policy): the chosen group's nodes come first in policy order, its
// first node is chosen and the policy picks its GPUs. With no group
// qualifying, report.chosen is cleared. Errors: unknown job_type (names the
// field), bad objective.
StatusOr<ObjectiveDecision> PlaceByObjective(const Cluster& cluster, const WorkloadRequest& req,
                                             const GavelThroughputs& table,
                                             const PriceLookup& prices, PlacementPolicy& policy,
                                             PlacementReport& report);

// The decision as a JSON object (for PlacementReportJson's answer) and as
// text lines for a terminal.
std::string ObjectiveDecisionJson(const ObjectiveDecision& d);
std::string ObjectiveDecisionText(const ObjectiveDecision& d);
// PlacementReportJson's answer with "objective": ObjectiveDecisionJson added.
std::string PlacementJsonWithObjective(const std::string& placement_json,
                                       const ObjectiveDecision& d);

}  // namespace gpufleet::place
