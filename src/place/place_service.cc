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

PlaceService::PlaceService(std::string inventory_path, std::string policy)
    : inventory_path_(std::move(inventory_path)),
      policy_(std::move(policy)),
      compat_(CatalogCompatHook()) {}

StatusOr<std::unique_ptr<PlaceService>> PlaceService::Create(std::string inventory_path,
                                                              std::string policy) {
  RETURN_IF_ERROR(MakePlacementPolicy(policy).status());
  RETURN_IF_ERROR(LoadInventoryFile(inventory_path).status());
  return std::unique_ptr<PlaceService>(
      new PlaceService(std::move(inventory_path), std::move(policy)));
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
  return {200, PlacementReportJson(cluster, *req, policy_, report, kMaxAlternatives)};
}

}  // namespace gpufleet::place
