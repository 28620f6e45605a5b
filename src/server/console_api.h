// The JSON APIs of the web console (issue 15; shapes in docs/server.md,
// "Console APIs"), registered on the server's HttpServer by HttpApi:
//   GET  /api/v1/fleet                   fleet summary (server/fleet_api.h)
//   GET  /api/v1/series                  series of a canonical metric
//                                        (server/series_api.h)
//   GET  /api/v1/schema                  the canonical metric catalog
//   GET  /api/v1/canary/runs             recent canary runs (server/canary_runs.h)
//   POST /api/v1/incidents/{id}/ack      acknowledge            [admin token]
//   POST /api/v1/incidents/{id}/resolve  resolve                [admin token]
// plus the incident list filters and the incident detail with evidence
// samples and cost, which http_api.cc's incident routes call.
//
// Errors: {"status": "error", "error": "<param>: ..."} with 400 for bad
// parameters, 404 for unknown ids and for a component that is off, 500 for
// storage errors.
//
// Thread safety: handlers run concurrently on the server's pool; every
// store used is thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/clock.h"
#include "detect/incident_store.h"
#include "net/http_server.h"
#include "server/canary_runs.h"
#include "server/fleet_api.h"
#include "server/longterm_reader.h"
#include "store/window_store.h"

namespace gpufleet {

class AlertSender;

struct ConsoleApiBackend {
  const WindowStore* window = nullptr;  // null: fleet and series answer 404
  CanaryRuns* canary_runs = nullptr;    // null: canary runs answer 404
  LongtermReader* longterm = nullptr;   // null: no long-term store
  int64_t stale_after_ns = 5LL * 60 * 1'000'000'000;
  // Where captures are written; empty = captures off (the capture routes
  // then list no files).
  std::string capture_output_dir;
  // The memory-contention rule's region, drawn on the contention map.
  std::optional<ContentionRegion> contention_region;
  // Alerts of incidents resolved over POST .../resolve; may be null.
  AlertSender* alerts = nullptr;
  std::string external_url;
  // The clock of the samples and incidents (sped up under --simulate);
  // null = the clock passed to RegisterConsoleApi.
  const Clock* data_clock = nullptr;
  // The contention cost the ledger attributes to an incident, in USD;
  // nullopt for kinds it does not charge. Empty = ledger off (null).
  std::function<std::optional<double>(const detect::IncidentRecord&)> incident_cost;
};

using Authorizer = std::function<bool(const HttpServerRequest&, HttpServerResponse&)>;

// Registers the routes above. `admin` answers 401 itself when it returns
// false. `backend`, `incidents` and `clock` must outlive `server`.
void RegisterConsoleApi(HttpServer& server, const ConsoleApiBackend& backend,
                        detect::IncidentStore& incidents, const Clock& clock, Authorizer admin);

// GET /api/v1/incidents with ?status=open|resolved|all &kind= &node= &team=
// &limit=N (0 = all, at most 10000): (HTTP status, body).
std::pair<int, std::string> IncidentListReply(const HttpServerRequest& req,
                                              detect::IncidentStore& incidents);

// GET /api/v1/incidents/{id}: the incident with its evidence, each evidence
// series with its samples around the incident's window and "cost_usd".
std::pair<int, std::string> IncidentDetailReply(int64_t id, const ConsoleApiBackend& backend,
                                                detect::IncidentStore& incidents, int64_t now_ns);

}  // namespace gpufleet
