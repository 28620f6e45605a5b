#include "place/place_service.h"

#include <nlohmann/json.hpp>

#include "place/compat_hook.h"
#include "place/placement_report.h"
#include "place/spec_file.h"

namespace gpufleet::place {
namespace {

PlaceReply ErrorReply(int code, const std::string& message) {
  return {code, nlohmann::json({{"status", "error"}, {"error", message}})
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                    "\n"};
}

constexpr int kMaxAlternatives = 5;


}  // namespace

PlaceService::PlaceService(std::string inventory_path, std::string policy,
                           PlaceObjectiveConfig objective)
    : inventory_path_(std::move(inventory_path)),
      policy_(std::move(policy)),
      compat_(CatalogCompatHook()),
      objective_(std::move(objective)) {}

StatusOr<std::unique_ptr<PlaceService>> PlaceService::Create(std::string inventory_path,
                                                              std::string policy,
                                                              PlaceObjectiveConfig objective) {
  RETURN_IF_ERROR(MakePlacementPolicy(policy).status());
  RETURN_IF_ERROR(LoadInventoryFile(inventory_path).status());
  std::optional<GavelThroughputs> table;
  if (!objective.throughputs_path.empty()) {
    ASSIGN_OR_RETURN(GavelThroughputs t, LoadGavelThroughputs(objective.throughputs_path));
    table = std::move(t);
  }
  std::unique_ptr<PlaceService> svc(
      new PlaceService(std::move(inventory_path), std::move(policy), std::move(objective)));
  svc->table_ = std::move(table);
  return svc;
}

PlaceReply PlaceService::Place(std::string_view json_body) const {
  StatusOr<WorkloadRequest> req = ParseRequestJson(json_body, "request");
  if (!req.ok()) return ErrorReply(400, req.status().message());
  StatusOr<Inventory> inv = LoadInventoryFile(inventory_path_);
  if (!inv.ok()) return ErrorReply(500, "inventory: " + inv.status().message());
  StatusOr<std::unique_ptr<PlacementPolicy>> policy = MakePlacementPolicy(policy_);
  if (!policy.ok()) return ErrorReply(500, policy.status().message());
  Cluster cluster = MakeCluster(*inv);
  PlacementReport report = ExplainPlacement(cluster, *req, **policy, compat_);
  if (req->objective.empty()) {
    return {200, PlacementReportJson(cluster, *req, policy_, report, kMaxAlternatives)};
  }
  if (!table_.has_value() || !objective_.prices) {
    return ErrorReply(400, "request: objective: this server has no throughput table "
                           "(set [place] throughputs = FILE in its config)");
  }
  StatusOr<ObjectiveDecision> d =
      PlaceByObjective(cluster, *req, *table_, objective_.prices, **policy, report);
  if (!d.ok()) return ErrorReply(400, "request: " + d.status().message());
  return {200, PlacementJsonWithObjective(PlacementReportJson(cluster, *req, policy_, report, kMaxAlternatives),
                             *d)};
}

}  // namespace gpufleet::place
