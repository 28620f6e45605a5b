#include "server/http_api.h"

#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "server/canary_incidents.h"
#include "server/console_routes.h"

namespace gpufleet {
namespace {

using nlohmann::json;

void Error(HttpServerResponse& res, int code, const std::string& message) {
  res.set_status(code);
  res.set_content(json({{"status", "error"}, {"error", message}}).dump() + "\n",
                  "application/json");
}

AccessPolicy WithToken(AccessPolicy access, const std::string& token) {
  if (!token.empty()) access.admin_tokens.push_back(token);
  return access;
}

// 0 when `kind` may proceed; otherwise answers the request and returns its status.
int Guard(const AccessPolicy& access, AccessKind kind, const HttpServerRequest& req,
          HttpServerResponse& res) {
  AccessDecision d = Authorize(access, kind, req.header("Authorization"));
  if (d.http_status == 0) return 0;
  if (d.http_status == 401) res.set_header("WWW-Authenticate", "Bearer");
  Error(res, d.http_status, d.message);
  return d.http_status;
}

}  // namespace

std::string IncidentJson(const detect::IncidentRecord& r, bool with_evidence) {
  json subject = json::object();
  for (const auto& [k, v] : r.subject.pairs()) subject[k] = v;
  json causes = json::array();
  for (const detect::IncidentCause& c : r.causes) {
    causes.push_back({{"cause", c.name}, {"share", c.share}, {"explanation", c.explanation}});
  }
  json o = {{"id", r.id},
            {"key", r.dedup_key},
            {"kind", r.kind},
            {"status", detect::IncidentStatusName(r.status)},
            {"subject", subject},
            {"devices", r.devices},
            {"workloads", r.workloads},
            {"team", r.team},
            {"severity", r.severity},
            {"summary", r.summary},
            {"first_seen_ns", r.first_seen_ns},
            {"last_seen_ns", r.last_seen_ns},
            {"resolved_at_ns", r.resolved_at_ns},
            {"window_start_ns", r.window_start_ns},
            {"window_end_ns", r.window_end_ns},
            {"estimated_slowdown", r.estimated_slowdown},
            {"causes", causes},
            {"capture_path", r.capture_path},
            {"observations", r.observations}};
  if (with_evidence) {
    json ev = json::array();
    for (const detect::IncidentEvidence& e : r.evidence) {
      ev.push_back({{"series", e.series},
                    {"condition", e.condition},
                    {"threshold", e.threshold},
                    {"value", e.value},
                    {"detail", e.detail}});
    }
    o["evidence"] = ev;
  }
  return o.dump();
}

HttpApi::HttpApi(HttpApiOptions options, HttpApiBackend backend, const Clock& clock)
    : HttpApi(std::move(options), std::move(backend), clock, std::make_unique<HttpServer>()) {}

HttpApi::HttpApi(HttpApiOptions options, HttpApiBackend backend, const Clock& clock,
                 std::unique_ptr<HttpServer> server)
    : options_(std::move(options)),
      access_(WithToken(options_.access, options_.token)),
      backend_(std::move(backend)),
      limiter_(options_.rate_limit, clock),
      clock_(clock),
      server_(std::move(server)) {
  Routes();
}

HttpApi::~HttpApi() { Stop(); }

void HttpApi::Routes() {
  HttpServer& s = *server_;
  s.SetMaxBodyBytes(options_.max_body_bytes);
  s.SetFilter([this](const HttpServerRequest& req, HttpServerResponse& res) {
    int64_t retry_s = limiter_.Admit(req.remote_addr());
    if (retry_s != 0) {
      res.set_header("Retry-After", std::to_string(retry_s));
      Error(res, 429, "rate limit exceeded for " + req.remote_addr());
      return true;
    }
    // The access rule, for every route, present and future, before any runs.
    return Guard(access_, ClassifyRequest(req.method(), req.path()), req, res) != 0;
  });
  // Write routes check again (the filter already did): a route that is a
  // write stays one even if the classification changes.
  auto authorized = [this](const HttpServerRequest& req, HttpServerResponse& res) {
    return Guard(access_, AccessKind::kWrite, req, res) == 0;
  };

  s.Post("/api/v1/write", [this, authorized](const HttpServerRequest& req, HttpServerResponse& res) {
    if (!authorized(req, res)) return;
    IngestResult r = backend_.ingester->IngestRemoteWrite(req.body());
    if (r.status.ok()) {
      res.set_status(204);
      return;
    }
    Error(res, r.status.code() == StatusCode::kUnavailable ? 503 : 400, r.status.message());
  });

  s.Get("/api/v1/incidents", [this](const HttpServerRequest& req, HttpServerResponse& res) {
    auto [status, body] = IncidentListReply(req, *backend_.incidents);
    if (status != 200) return Error(res, status, body);
    res.set_content(body, "application/json");
  });

  s.Get(R"(/api/v1/incidents/(\d+))", [this](const HttpServerRequest& req, HttpServerResponse& res) {
    std::optional<int64_t> id = ParseInt64(req.match(1));
    if (!id.has_value()) return Error(res, 400, "bad incident id");
    const Clock& data = backend_.console.data_clock ? *backend_.console.data_clock : clock_;
    auto [status, body] = IncidentDetailReply(*id, backend_.console, *backend_.incidents,
                                              data.NowNs());
    if (status != 200) return Error(res, status, body);
    res.set_content(body, "application/json");
  });
  RegisterConsoleApi(s, backend_.console, *backend_.incidents, clock_, authorized);

  for (const char* path :
       {"/api/v1/cost", "/api/v1/cost/budgets", "/api/v1/cost/summary", "/allocation"}) {
    s.Get(path, [this, path](const HttpServerRequest& req, HttpServerResponse& res) {
      if (!backend_.cost) {
        return Error(res, 404, "the cost ledger is off ([cost] enabled = false)");
      }
      std::map<std::string, std::string> params;
      for (const char* k : {"from", "to", "by", "basis", "idle", "contention", "format", "window",
                            "aggregate", "includeIdle", "shareIdle", "at", "team", "month"}) {
        if (req.has_param(k)) params[k] = req.param(k);
      }
      auto [status, type, body] = backend_.cost(path, params);
      if (status != 200) return Error(res, status, body);
      res.set_content(body, type);
    });
  }

  s.Get("/api/v1/inventory", [this](const HttpServerRequest&, HttpServerResponse& res) {
    StatusOr<std::vector<InventoryNode>> nodes = backend_.inventory->Nodes();
    StatusOr<std::vector<InventoryDevice>> devices = backend_.inventory->Devices();
    if (!nodes.ok()) return Error(res, 500, nodes.status().ToString());
    if (!devices.ok()) return Error(res, 500, devices.status().ToString());
    json n = json::array();
    for (const InventoryNode& x : *nodes) {
      n.push_back({{"name", x.name},
                   {"cloud", x.cloud},
                   {"region", x.region},
                   {"zone", x.zone},
                   {"last_seen_ns", x.last_seen_ns}});
    }
    json d = json::array();
    for (const InventoryDevice& x : *devices) {
      d.push_back({{"key", x.key},
                   {"node", x.node},
                   {"vendor", x.vendor},
                   {"model", x.model},
                   {"pci_bus_id", x.pci_bus_id},
                   {"driver_version", x.driver_version},
                   {"runtime_version", x.runtime_version},
                   {"arch", x.arch},
                   {"partition", x.partition},
                   {"last_seen_ns", x.last_seen_ns}});
    }
    json body = {{"status", "success"}, {"data", {{"nodes", n}, {"devices", d}}}};
    res.set_content(body.dump() + "\n", "application/json");
  });

  s.Post("/api/v1/admin/detect",
         [this, authorized](const HttpServerRequest& req, HttpServerResponse& res) {
           if (!authorized(req, res)) return;
           if (!backend_.run_detectors) return Error(res, 503, "detectors are not running");
           Status st = backend_.run_detectors();
           if (!st.ok()) return Error(res, 500, st.ToString());
           res.set_content("{\"status\":\"success\"}\n", "application/json");
         });

  s.Post("/api/v1/canary", [this, authorized](const HttpServerRequest& req, HttpServerResponse& res) {
    if (!authorized(req, res)) return;
    int64_t now = clock_.NowNs();
    StatusOr<CanaryIncidents> in = CanaryIncidentsFromJson(req.body(), now);
    if (!in.ok()) return Error(res, 400, in.status().message());
    StatusOr<CanaryApplyResult> applied =
        ApplyCanaryVerdicts(*in, *backend_.incidents, backend_.alerts, backend_.external_url, now);
    if (!applied.ok()) return Error(res, 500, applied.status().ToString());
    if (backend_.console.canary_runs != nullptr) {
      StatusOr<int64_t> run = backend_.console.canary_runs->Record(req.body(), now);
      if (!run.ok()) return Error(res, 500, run.status().ToString());
    }
    json body = {{"status", "success"},
                 {"data",
                  {{"incidents", applied->incidents},
                   {"created", applied->created},
                   {"resolved", applied->resolved},
                   {"ignored", applied->ignored}}}};
    res.set_content(body.dump() + "\n", "application/json");
  });

  s.Post("/api/v1/place", [this](const HttpServerRequest& req, HttpServerResponse& res) {
    if (!backend_.place) {
      return Error(res, 404,
                   "placement is not configured: set [place] inventory = \"FILE\" in the "
                   "server config");
    }
    std::pair<int, std::string> r = backend_.place(req.body());
    res.set_status(r.first);
    res.set_content(r.second, "application/json");
  });

  for (const char* kind : {"inference", "training", "ring"}) {
    s.Post(std::string("/api/v1/plan/") + kind,
           [this, kind](const HttpServerRequest& req, HttpServerResponse& res) {
             if (!backend_.plan) return Error(res, 404, "planning is not configured");
             std::pair<int, std::string> r = backend_.plan(kind, req.body());
             res.set_status(r.first);
             res.set_content(r.second, "application/json");
           });
  }

  RegisterConsoleRoutes(s);  // GET / and /assets/*: the web console (docs/console.md)

  s.Get("/metrics", [this](const HttpServerRequest&, HttpServerResponse& res) {
    res.set_content(backend_.render_metrics ? backend_.render_metrics() : std::string(),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/-/healthy", [](const HttpServerRequest&, HttpServerResponse& res) {
    res.set_content("gpufleet server is healthy.\n", "text/plain");
  });
  s.Get("/-/ready", [this](const HttpServerRequest&, HttpServerResponse& res) {
    if (backend_.ready && !backend_.ready()) {
      res.set_status(503);
      res.set_content("gpufleet server is starting.\n", "text/plain");
      return;
    }
    res.set_content("gpufleet server is ready.\n", "text/plain");
  });
}

Status HttpApi::Start(const std::string& host, int port) {
  return server_->Start(host, port).status();
}

void HttpApi::Stop() { server_->Stop(); }

}  // namespace gpufleet
