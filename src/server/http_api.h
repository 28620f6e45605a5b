// HttpApi: the server's HTTP endpoints (served through net/http_server.h).
//   POST /api/v1/write          Prometheus remote write 1.0 (snappy protobuf);
//                               204, or 400 naming what was rejected (valid
//                               series of the batch are still stored)  [token]
//   GET  /api/v1/incidents      JSON list; ?status=open|resolved|all, ?limit=N
//                               (<= 10000), ?kind=, ?node=, ?team=
//   GET  /api/v1/incidents/{id} one incident with its evidence, each evidence
//                               series with its samples, and cost_usd (404 unknown)
//   POST /api/v1/incidents/{id}/ack|resolve  acknowledge / resolve  [token]
//   GET  /api/v1/fleet          fleet summary: every device, health, latest readings
//   GET  /api/v1/series         a canonical metric's series (window or long-term)
//   GET  /api/v1/schema         the canonical metric catalog
//   GET  /api/v1/canary/runs    recent canary runs (every posted verdict)
//                               (the console's APIs: server/console_api.h)
//   GET  /api/v1/inventory      nodes and devices
//   GET  /api/v1/cost           the cost ledger: ?from=-30d&to=now&by=team,model
//                               &basis=allocation|usage|usage-mean
//                               &idle=none|proportional|owner
//                               &contention=transfer|surcharge|off
//                               &format=json|csv|text|focus (cost/cost_api.h)
//   GET  /api/v1/cost/budgets   ?at=now: each team budget's month so far and forecast
//   GET  /allocation            the ledger in OpenCost's response shape:
//                               ?window=7d|today|week|month|START,END
//                               &aggregate=namespace|pod|node|controller|team
//                               &includeIdle=true&shareIdle=false
//   POST /api/v1/admin/detect   run the detectors now               [token]
//   POST /api/v1/canary         failing canary verdicts -> incidents of kind
//                               canary_regression, alerted when opened; a
//                               "pass" resolves the open one
//                               (server/canary_incidents.h); every push is
//                               kept as a canary run (server/canary_runs.h) [token]
//   POST /api/v1/place          JSON workload request -> placement decision with
//                               alternatives and rejections (place/place_service.h);
//                               404 when no [place] inventory is configured
//   POST /api/v1/plan/inference|training|ring  TOML body -> plan as JSON
//                               (plan/plan_service.h; docs/plan.md)
//   GET  /, /assets/<file>      the web console (server/console_routes.h)
//   GET  /metrics               self-metrics, Prometheus text format
//   GET  /-/healthy, /-/ready   liveness and readiness
// Every request passes the per-address rate limit (429 + Retry-After), then
// the access rule (server/auth_limits.h: ClassifyRequest + Authorize; 401
// with WWW-Authenticate: Bearer, or 403) before any route runs, then the
// body-size limit (413). [token]: a write, needing an admin token when one
// is configured; beyond loopback every route but the console's static
// assets and the probes needs a read or admin token.
//
// Thread safety: Start/Stop from one thread; handlers run on the server's pool.
#pragma once

#include <functional>
#include <map>
#include <tuple>
#include <memory>
#include <string>
#include <utility>

#include "core/clock.h"
#include "core/status.h"
#include "detect/incident_store.h"
#include "net/http_server.h"
#include "place/inventory_store.h"
#include "server/alert_sender.h"
#include "server/auth_limits.h"
#include "server/console_api.h"
#include "server/ingest.h"

namespace gpufleet {

// JSON of one incident (as served by the API and printed by the CLI).
std::string IncidentJson(const detect::IncidentRecord& r, bool with_evidence);

struct HttpApiOptions {
  std::string token;    // one more admin token (kept for callers that set only this)
  AccessPolicy access;  // who may read and write (server/auth_limits.h)
  size_t max_body_bytes = 16 << 20;
  RateLimitOptions rate_limit;
};

struct HttpApiBackend {
  Ingester* ingester = nullptr;
  detect::IncidentStore* incidents = nullptr;
  InventoryStore* inventory = nullptr;
  std::function<std::string()> render_metrics;
  std::function<Status()> run_detectors;  // may be empty
  std::function<bool()> ready;            // may be empty = always ready
  // GET /api/v1/cost and /allocation: (path, query parameters) -> (HTTP
  // status, content type, body); an error status carries the message as
  // body. Empty = ledger off (404).
  std::function<std::tuple<int, std::string, std::string>(
      const std::string&, const std::map<std::string, std::string>&)>
      cost;
  // POST /api/v1/place: body -> (HTTP status, JSON). Empty = not configured (404).
  std::function<std::pair<int, std::string>(const std::string&)> place;
  // POST /api/v1/plan/{inference,training,ring}: (kind, TOML body) -> (HTTP
  // status, JSON) (plan/plan_service.h). Empty = not configured (404).
  std::function<std::pair<int, std::string>(const std::string&, const std::string&)> plan;
  // Alerts for canary incidents opened / resolved over POST /api/v1/canary;
  // may be null. `external_url` as in DetectorLoopOptions.
  AlertSender* alerts = nullptr;
  std::string external_url;
  // The console's APIs (server/console_api.h).
  ConsoleApiBackend console;
};

class HttpApi {
 public:
  HttpApi(HttpApiOptions options, HttpApiBackend backend, const Clock& clock);
  // Serves through `server` (e.g. HttpServer::NewTls) instead of plain HTTP.
  HttpApi(HttpApiOptions options, HttpApiBackend backend, const Clock& clock,
          std::unique_ptr<HttpServer> server);
  ~HttpApi();

  // Binds host:port (0 = any free port) and serves in the background.
  Status Start(const std::string& host, int port);
  void Stop();
  int port() const { return server_->port(); }
  bool tls() const { return server_->tls(); }  // serving https

 private:
  void Routes();

  const HttpApiOptions options_;
  const AccessPolicy access_;  // options_.access with options_.token among the admin tokens
  const HttpApiBackend backend_;
  RateLimiter limiter_;
  const Clock& clock_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace gpufleet
