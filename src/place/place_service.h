// The server's placement endpoint (POST /api/v1/place) without HTTP: a JSON
// request (the fields of request.toml, spec_file.h) answered against an
// inventory file with the report of placement_report.h.
//
// The inventory file is read on every call, so whatever keeps it current
// (a script, a controller) needs no reload signal.
//
// Thread safety: Place() is const and may run on many threads at once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "place/feasibility.h"
#include "place/gavel_data.h"
#include "place/objective_choice.h"

namespace gpufleet::place {

struct PlaceReply {
  int http_status = 200;  // 200 placed or not (see "placed"), 400 bad request, 500 bad inventory
  std::string body;       // JSON
};

// What a request with an `objective` needs (objective_choice.h): Gavel's
// throughput table ("" = objectives answer 400) and the price of a GPU-hour.
struct PlaceObjectiveConfig {
  std::string throughputs_path;
  PriceLookup prices;
};

class PlaceService {
 public:
  // Checks the policy spec and loads the inventory once, so a typo fails at
  // startup rather than on the first request.
  static StatusOr<std::unique_ptr<PlaceService>> Create(std::string inventory_path,
                                                        std::string policy,
                                                        PlaceObjectiveConfig objective = {});
  PlaceReply Place(std::string_view json_body) const;

 private:
  PlaceService(std::string inventory_path, std::string policy, PlaceObjectiveConfig objective);
  const std::string inventory_path_;
  const std::string policy_;
  const SoftwareCompatHook compat_;
  const PlaceObjectiveConfig objective_;
  std::optional<GavelThroughputs> table_;  // set at construction when configured
};

}  // namespace gpufleet::place
