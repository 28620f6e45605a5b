#include "server/console_api.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/clock.h"
#include "core/strings.h"
#include "schema/metric_catalog.h"
#include "server/alert_sender.h"
#include "server/capture_files.h"
#include "server/fleet_api.h"
#include "server/http_api.h"
#include "server/query_params.h"
#include "server/series_api.h"
#include "server/series_query.h"

namespace gpufleet {
namespace {

using nlohmann::json;

constexpr int64_t kIncidentListMaxLimit = 10000;
// Evidence charts show the incident's window with this much before and after.
constexpr int64_t kEvidenceBeforeNs = 10 * 60 * kNsPerSecond;
constexpr int64_t kEvidenceAfterNs = 5 * 60 * kNsPerSecond;
constexpr size_t kEvidenceMaxPoints = 2000;

std::string ErrorBody(const std::string& message) {
  return json({{"status", "error"}, {"error", message}})
             .dump(-1, ' ', false, json::error_handler_t::replace) +
         "\n";
}

void Reply(HttpServerResponse& res, int status, const std::string& body) {
  res.set_status(status);
  res.set_content(status < 400 ? body : ErrorBody(body), "application/json");
}

QueryParams Params(const HttpServerRequest& req, std::initializer_list<const char*> names) {
  QueryParams p;
  for (const char* n : names) {
    if (req.has_param(n)) p[n] = req.param(n);
  }
  return p;
}

double Seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }
json SecondsOrNull(int64_t ns) { return ns == 0 ? json(nullptr) : json(Seconds(ns)); }

// IncidentJson plus the console's fields: times in unix seconds and the
// acknowledgement.
json ConsoleIncident(const detect::IncidentRecord& r, bool with_evidence) {
  json o = json::parse(IncidentJson(r, with_evidence));
  o["first_seen"] = Seconds(r.first_seen_ns);
  o["last_seen"] = Seconds(r.last_seen_ns);
  o["resolved_at"] = SecondsOrNull(r.resolved_at_ns);
  o["window_start"] = SecondsOrNull(r.window_start_ns);
  o["window_end"] = SecondsOrNull(r.window_end_ns);
  o["acknowledged"] = r.acknowledged_at_ns != 0;
  o["acknowledged_at"] = SecondsOrNull(r.acknowledged_at_ns);
  return o;
}

std::string Dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

// Samples of one evidence series over [from_ns, to_ns]: the window's points
// of the matching series with the most points, else the long-term store's.
json EvidenceSamples(const std::string& series, int64_t from_ns, int64_t to_ns,
                     const ConsoleApiBackend& b) {
  json out = {{"t", json::array()}, {"v", json::array()}, {"source", "none"}};
  StatusOr<std::pair<std::string, Labels>> sel = ParseSeriesSelector(series);
  if (!sel.ok() || MetricCatalog::Default().Find(sel->first) == nullptr) {
    out["source"] = "not_a_series";  // e.g. contention_evidence: a finding's text, no series
    out["note"] = "not a canonical series: no samples";
    return out;
  }
  std::vector<WindowPoint> best;
  if (b.window != nullptr) {
    b.window->ForEach(sel->first, from_ns, to_ns,
                      [&](const StoredLabels& l, std::span<const WindowPoint> pts) {
                        for (const auto& [k, v] : sel->second.pairs()) {
                          if (l.Get(k) != v) return;
                        }
                        if (pts.size() > best.size()) best.assign(pts.begin(), pts.end());
                      });
  }
  if (!best.empty()) {
    size_t stride = (best.size() + kEvidenceMaxPoints - 1) / kEvidenceMaxPoints;
    for (size_t i = 0; i < best.size(); i += stride) {
      out["t"].push_back(Seconds(best[i].timestamp_ns));
      out["v"].push_back(best[i].value);
    }
    out["source"] = "window";
    return out;
  }
  if (b.longterm == nullptr) return out;
  SeriesQuery q;
  q.metric = sel->first;
  q.match = sel->second;
  q.from_ns = from_ns;
  q.to_ns = to_ns;
  q.step_ns = std::max<int64_t>(15 * kNsPerSecond, (to_ns - from_ns) / 500);
  q.limit = 1;
  StatusOr<std::vector<SeriesData>> lt = b.longterm->Query(q);
  if (!lt.ok()) {
    out["note"] = lt.status().message();
    return out;
  }
  if (lt->empty()) return out;
  for (size_t i = 0; i < lt->front().v.size(); ++i) {
    if (!lt->front().v[i].has_value()) continue;
    out["t"].push_back(Seconds(q.TimeAt(static_cast<int64_t>(i))));
    out["v"].push_back(*lt->front().v[i]);
  }
  out["source"] = "longterm";
  return out;
}

std::optional<int64_t> IdOf(const HttpServerRequest& req) { return ParseInt64(req.match(1)); }

}  // namespace

std::pair<int, std::string> IncidentListReply(const HttpServerRequest& req,
                                              detect::IncidentStore& incidents) {
  std::optional<detect::IncidentStatus> status;
  std::string want = req.has_param("status") ? req.param("status") : "all";
  if (want != "all") {
    status = detect::ParseIncidentStatus(want);
    if (!status.has_value()) return {400, "status: want open, resolved or all"};
  }
  int64_t limit = 0;
  if (req.has_param("limit")) {
    StatusOr<int64_t> l = ParseQueryLimit("limit", req.param("limit"), kIncidentListMaxLimit);
    if (!l.ok()) return {400, l.status().message()};
    limit = *l;
  }
  std::string kind = req.has_param("kind") ? req.param("kind") : "";
  std::string node = req.has_param("node") ? req.param("node") : "";
  std::string team = req.has_param("team") ? req.param("team") : "";
  bool filtered = !kind.empty() || !node.empty() || !team.empty();
  StatusOr<std::vector<detect::IncidentRecord>> list =
      incidents.List(status, filtered ? 0 : static_cast<size_t>(limit));
  if (!list.ok()) return {500, list.status().ToString()};
  json data = json::array();
  for (const detect::IncidentRecord& r : *list) {
    if (!kind.empty() && r.kind != kind) continue;
    if (!team.empty() && r.team != team) continue;
    if (!node.empty() && r.subject.Get("node") != node) {
      bool on_node = std::any_of(r.devices.begin(), r.devices.end(),
                                 [&](const std::string& d) { return StartsWith(d, node + "/"); });
      if (!on_node) continue;
    }
    data.push_back(ConsoleIncident(r, false));
    if (limit > 0 && static_cast<int64_t>(data.size()) >= limit) break;
  }
  return {200, Dump({{"status", "success"}, {"data", data}})};
}

std::pair<int, std::string> IncidentDetailReply(int64_t id, const ConsoleApiBackend& backend,
                                                detect::IncidentStore& incidents, int64_t now_ns) {
  StatusOr<std::optional<detect::IncidentRecord>> r = incidents.Get(id);
  if (!r.ok()) return {500, r.status().ToString()};
  if (!r->has_value()) return {404, "id: no incident " + std::to_string(id)};
  const detect::IncidentRecord& rec = **r;
  json o = ConsoleIncident(rec, true);
  int64_t start = rec.window_start_ns != 0 ? rec.window_start_ns : rec.first_seen_ns;
  int64_t end = std::max(rec.window_end_ns, rec.last_seen_ns);
  int64_t from = start - kEvidenceBeforeNs;
  int64_t to = std::min(now_ns, end + kEvidenceAfterNs);
  if (to < from) to = from;
  for (size_t i = 0; i < rec.evidence.size() && i < o["evidence"].size(); ++i) {
    json& e = o["evidence"][i];
    e["window"] = {{"from", Seconds(start)}, {"to", Seconds(end)}};
    e["samples"] = EvidenceSamples(rec.evidence[i].series, from, to, backend);
  }
  if (backend.incident_cost) {
    std::optional<double> usd = backend.incident_cost(rec);
    o["cost_usd"] = usd.has_value() ? json(*usd) : json(nullptr);
  } else {
    o["cost_usd"] = nullptr;
  }
  return {200, Dump({{"status", "success"}, {"data", o}})};
}

void RegisterConsoleApi(HttpServer& s, const ConsoleApiBackend& backend,
                        detect::IncidentStore& incidents, const Clock& clock, Authorizer admin) {
  const ConsoleApiBackend* b = &backend;
  detect::IncidentStore* book = &incidents;
  const Clock* now_clock = backend.data_clock != nullptr ? backend.data_clock : &clock;

  auto summary = std::make_shared<FleetSummary>();
  s.Get("/api/v1/fleet", [b, book, now_clock, summary](const HttpServerRequest& req,
                                                       HttpServerResponse& res) {
    if (b->window == nullptr) return Reply(res, 404, "the window store is not available");
    FleetFilter f;
    for (auto [name, field] :
         {std::pair{"vendor", &f.vendor}, std::pair{"model", &f.model},
          std::pair{"cloud", &f.cloud}, std::pair{"node", &f.node}, std::pair{"team", &f.team}}) {
      if (req.has_param(name)) *field = req.param(name);
    }
    std::unordered_map<std::string, int> open;
    StatusOr<std::vector<detect::IncidentRecord>> list = book->List(detect::IncidentStatus::kOpen);
    if (!list.ok()) return Reply(res, 500, list.status().ToString());
    for (const detect::IncidentRecord& r : *list) {
      for (const std::string& d : r.devices) open[d]++;
    }
    FleetOptions o;
    o.window_ns = b->window->options().retention_ns;
    o.stale_after_ns = b->stale_after_ns;
    o.contention_region = b->contention_region;
    Reply(res, 200, summary->Json(*b->window, f, open, now_clock->NowNs(), o));
  });

  s.Get("/api/v1/series", [b, now_clock](const HttpServerRequest& req, HttpServerResponse& res) {
    if (b->window == nullptr) return Reply(res, 404, "the window store is not available");
    const int64_t now = now_clock->NowNs();
    StatusOr<SeriesQuery> q =
        ParseSeriesQuery(Params(req, {"metric", "gpu_uuid", "vendor", "model", "cloud", "node",
                                      "aggregate", "from", "to", "step", "limit"}),
                         now, MetricCatalog::Default());
    if (!q.ok()) return Reply(res, 400, q.status().message());
    StatusOr<SeriesAnswer> a = AnswerSeries(*b->window, b->longterm, *q, now);
    if (!a.ok()) return Reply(res, 400, a.status().message());
    Reply(res, 200, SeriesAnswerJson(*q, *a));
  });

  s.Get("/api/v1/schema", [](const HttpServerRequest&, HttpServerResponse& res) {
    json metrics = json::array();
    for (const MetricDef& m : MetricCatalog::Default().metrics()) {
      metrics.push_back({{"name", m.name},
                         {"unit", m.unit},
                         {"help", m.help},
                         {"type", MetricTypeName(m.type)},
                         {"family", m.family},
                         {"labels", m.labels},
                         {"comparability", m.comparability}});
    }
    Reply(res, 200, Dump({{"metrics", metrics}}));
  });

  s.Get("/api/v1/canary/runs", [b](const HttpServerRequest& req, HttpServerResponse& res) {
    if (b->canary_runs == nullptr) return Reply(res, 404, "canary runs are not kept");
    int64_t limit = 50;
    if (req.has_param("limit")) {
      StatusOr<int64_t> l = ParseQueryLimit("limit", req.param("limit"), kCanaryRunsMaxLimit);
      if (!l.ok()) return Reply(res, 400, l.status().message());
      if (*l == 0) return Reply(res, 400, "limit: 0: expected at least 1");
      limit = *l;
    }
    bool latest_per_node = false;
    if (req.has_param("latest")) {
      if (req.param("latest") != "node") {
        return Reply(res, 400, "latest: \"" + req.param("latest") + "\": expected \"node\"");
      }
      latest_per_node = true;
    }
    StatusOr<std::string> body = b->canary_runs->ListJson(
        req.has_param("target") ? req.param("target") : "", limit, latest_per_node);
    if (!body.ok()) return Reply(res, 500, body.status().ToString());
    Reply(res, 200, *body);
  });

  for (bool ack : {true, false}) {
    s.Post(
        std::string(R"(/api/v1/incidents/(\d+)/)") + (ack ? "ack" : "resolve"),
        [b, book, now_clock, admin, ack](const HttpServerRequest& req, HttpServerResponse& res) {
          if (!admin(req, res)) return;
          std::optional<int64_t> id = IdOf(req);
          if (!id.has_value()) return Reply(res, 400, "id: not an incident id");
          const int64_t now = now_clock->NowNs();
          StatusOr<std::optional<detect::IncidentRecord>> before = book->Get(*id);
          if (!before.ok()) return Reply(res, 500, before.status().ToString());
          if (!before->has_value()) {
            return Reply(res, 404, "id: no incident " + std::to_string(*id));
          }
          StatusOr<std::optional<detect::IncidentRecord>> r =
              ack ? book->Acknowledge(*id, now) : book->Resolve(*id, now);
          if (!r.ok()) return Reply(res, 500, r.status().ToString());
          if (!r->has_value()) return Reply(res, 404, "id: no incident " + std::to_string(*id));
          // A person resolving an open incident resolves its alert too.
          if (!ack && b->alerts != nullptr && (*before)->status == detect::IncidentStatus::kOpen) {
            b->alerts->Resolve((*r)->dedup_key, AlertFromIncident(**r, b->external_url));
          }
          Reply(res, 200, Dump({{"status", "success"}, {"data", ConsoleIncident(**r, true)}}));
        });
  }

  // The incident's capture files on this server (server/capture_files.h):
  // the list, and each file as a download.
  auto capture_of = [b, book](const HttpServerRequest& req, HttpServerResponse& res)
      -> std::optional<std::pair<std::string, std::vector<CaptureFile>>> {
    std::optional<int64_t> id = IdOf(req);
    if (!id.has_value()) {
      Reply(res, 400, "id: not an incident id");
      return std::nullopt;
    }
    StatusOr<std::optional<detect::IncidentRecord>> r = book->Get(*id);
    if (!r.ok()) {
      Reply(res, 500, r.status().ToString());
      return std::nullopt;
    }
    if (!r->has_value()) {
      Reply(res, 404, "id: no incident " + std::to_string(*id));
      return std::nullopt;
    }
    const std::string& path = (*r)->capture_path;
    if (path.empty()) {
      Reply(res, 404, "incident " + std::to_string(*id) + " has no capture");
      return std::nullopt;
    }
    return std::pair{path, ListCaptureFiles(b->capture_output_dir, path)};
  };
  s.Get(R"(/api/v1/incidents/(\d+)/capture)",
        [capture_of](const HttpServerRequest& req, HttpServerResponse& res) {
          auto c = capture_of(req, res);
          if (!c.has_value()) return;
          json files = json::array();
          for (const CaptureFile& f : c->second) {
            files.push_back({{"name", f.name}, {"bytes", f.bytes}});
          }
          Reply(res, 200,
                Dump({{"status", "success"},
                      {"data", {{"capture_path", c->first}, {"files", std::move(files)}}}}));
        });
  s.Get(R"(/api/v1/incidents/(\d+)/capture/([^/]+))", [b, capture_of](const HttpServerRequest& req,
                                                                      HttpServerResponse& res) {
    auto c = capture_of(req, res);
    if (!c.has_value()) return;
    const std::string name = req.match(2);
    auto it = std::find_if(c->second.begin(), c->second.end(),
                           [&](const CaptureFile& f) { return f.name == name; });
    if (it == c->second.end()) {
      return Reply(res, 404, "name: the capture has no file '" + name + "' on this server");
    }
    res.set_header("Content-Disposition", "attachment; filename=\"" + it->name + "\"");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_file(b->capture_output_dir + "/" + it->name, it->bytes, "application/octet-stream");
  });
}

}  // namespace gpufleet
