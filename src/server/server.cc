#include "server/server.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "core/embedded.h"
#include "core/file_util.h"
#include "core/strings.h"
#include "cost/cost_api.h"
#include "cost/cost_metrics.h"
#include "cost/cost_query.h"
#include "cost/job_query.h"
#include "cost/ledger.h"
#include "detect/device_series.h"
#include "net/url.h"
#include "place/place_service.h"
#include "plan/plan_service.h"
#include "server/budget_alerts.h"
#include "server/cost_jump_alerts.h"
#include "server/place_prices.h"

namespace gpufleet {
namespace {

// How often (clock time) costs are checked (budgets, cost-per-unit jumps,
// job costs): each check charges the month so far, so not at every
// detector run.
constexpr int64_t kBudgetCheckNs = 15 * 60 * kNsPerSecond;

void Metric(std::string& out, std::string_view name, std::string_view type, std::string_view help,
            double value) {
  out += "# HELP ";
  out += name;
  out += " ";
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += " ";
  out += type;
  out += "\n";
  out += name;
  out += " ";
  AppendDouble(value, out);
  out += "\n";
}

// The site prices: a file, "embedded:NAME" (data/NAME), or "" (catalog only).
StatusOr<cost::PriceBook> LoadPrices(const std::string& spec) {
  if (spec.empty()) return cost::PriceBook();
  if (spec.rfind("embedded:", 0) == 0) {
    std::string name = spec.substr(9);
    std::optional<std::string_view> text = FindEmbeddedFile(name);
    if (!text.has_value()) return NotFoundError("[cost] prices: no embedded file data/" + name);
    return cost::PriceBook::Parse(*text, name);
  }
  return cost::PriceBook::Load(spec);
}

}  // namespace

Server::Server(const ServerOptions& options)
    : options_(options), clock_(options.clock != nullptr ? *options.clock : RealClock::Get()) {}

StatusOr<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  const ServerConfig& c = options.config;
  // Refuse an exposed server before touching any state.
  ASSIGN_OR_RETURN(AccessPolicy access, AccessPolicyFromConfig(c));
  std::unique_ptr<HttpServer> http_server;
  if (!c.tls_cert_file.empty()) {
    StatusOr<std::unique_ptr<HttpServer>> tls =
        HttpServer::NewTls({c.tls_cert_file, c.tls_key_file});
    if (!tls.ok()) return tls.status().WithContext("[tls]");
    http_server = std::move(*tls);
  } else {
    http_server = std::make_unique<HttpServer>();
  }
  std::unique_ptr<Server> s(new Server(options));
  double scale = options.time_scale > 0 ? options.time_scale : 1;
  auto real = [scale](int64_t clock_ns) {
    return std::max<int64_t>(kNsPerMs, static_cast<int64_t>(static_cast<double>(clock_ns) / scale));
  };

  ASSIGN_OR_RETURN(s->incident_db_, StateDb::Open(c.db_path, detect::IncidentMigrations()));
  ASSIGN_OR_RETURN(s->inventory_db_, StateDb::Open(c.db_path, InventoryMigrations()));
  s->incidents_ = std::make_unique<detect::IncidentStore>(s->incident_db_.get());
  s->inventory_ = std::make_unique<InventoryStore>(s->inventory_db_.get());
  ASSIGN_OR_RETURN(s->baselines_, detect::OpenSqliteBaselineStore(c.db_path));
  ASSIGN_OR_RETURN(s->canary_runs_db_, StateDb::Open(c.db_path, CanaryRunMigrations()));
  s->canary_runs_ = std::make_unique<CanaryRuns>(s->canary_runs_db_.get());
  if (!c.longterm_query_url.empty()) {
    RETURN_IF_ERROR(
        ParseHttpUrl(c.longterm_query_url).status().WithContext("[longterm] query_url"));
    LongtermOptions lt;
    lt.query_url = c.longterm_query_url;
    lt.token = c.longterm_token;
    lt.timeout_ns = c.longterm_timeout_ns;
    s->longterm_ = std::make_unique<LongtermReader>(lt, NewHttpClient());
  }

  WindowStoreOptions wopts;
  wopts.retention_ns = c.window_retention_ns;
  wopts.max_series = static_cast<size_t>(c.window_max_series);
  s->window_ = std::make_unique<WindowStore>(wopts);

  if (!c.forward_url.empty()) {
    ForwarderOptions f;
    f.url = c.forward_url;
    f.bearer_token = c.forward_token;
    f.queue_dir = c.forward_queue_dir;
    f.queue_max_bytes = static_cast<uint64_t>(c.forward_queue_max_bytes);
    ASSIGN_OR_RETURN(s->forwarder_, RemoteWriteForwarder::Start(f));
  }

  detect::DetectConfig dconfig = detect::DefaultDetectConfig();
  if (!c.detect_config_path.empty()) {
    ASSIGN_OR_RETURN(std::string text, ReadFileToString(c.detect_config_path));
    ASSIGN_OR_RETURN(dconfig, detect::ParseDetectConfig(text, c.detect_config_path));
  }
  ASSIGN_OR_RETURN(s->engine_, detect::DetectionEngine::Create(dconfig, s->baselines_.get()));
  const std::optional<ContentionRegion> contention_region = FindContentionRegion(dconfig);

  if (!c.alertmanager_urls.empty() || !c.webhook_urls.empty()) {
    AlertSenderOptions a;
    a.alertmanager_urls = c.alertmanager_urls;
    a.webhook_urls = c.webhook_urls;
    a.webhook_bearer_token = c.webhook_token;
    // Receivers judge alert freshness on their own (real) clock.
    a.resend_ns = real(c.alert_resend_ns);
    ASSIGN_OR_RETURN(s->alerts_, AlertSender::Create(a, RealClock::Get()));
  }
  if (c.capture_enabled) {
    CaptureRunnerOptions cr;
    cr.output_dir = c.capture_output_dir;
    cr.duration_ns = c.capture_duration_ns;
    s->captures_ = std::make_unique<CaptureRunner>(cr);
  }

  std::shared_ptr<const cost::PriceBook> prices;
  if (c.cost_enabled) {
    // Two connections: ingest threads run the Meter and the WorkMeter at
    // the same time, each under its own mutex, and an SQLite connection
    // (opened NOMUTEX) must not serve two threads at once. On one, their
    // transactions ran into each other: a BEGIN inside the other's
    // transaction, one's rollback undoing the other's acknowledged rows.
    ASSIGN_OR_RETURN(s->cost_db_, StateDb::Open(c.db_path, cost::CostMigrations()));
    ASSIGN_OR_RETURN(s->work_db_, StateDb::Open(c.db_path, cost::CostMigrations()));
    s->meter_ = std::make_unique<cost::Meter>(s->cost_db_.get());
    s->work_meter_ = std::make_unique<cost::WorkMeter>(s->work_db_.get());
    ASSIGN_OR_RETURN(cost::PriceBook book, LoadPrices(c.cost_prices));
    prices = std::make_shared<const cost::PriceBook>(std::move(book));
    s->prices_ = prices;
  }
  s->ingester_ = std::make_unique<Ingester>(*s->window_, s->inventory_.get(), s->forwarder_.get(),
                                            s->clock_, RemoteWriteLimits(), s->meter_.get(),
                                            s->prices_.get(), s->work_meter_.get());
  DetectorLoopOptions d;
  d.period_real_ns = real(c.detect_interval_ns);
  d.resolve_after_ns = c.resolve_after_ns;
  d.external_url = c.external_url;
  if (s->meter_ != nullptr && s->prices_ != nullptr) {
    // The periodic cost check, every kBudgetCheckNs of clock time: budgets
    // (server/budget_alerts.h), cost-per-unit jumps (server/cost_jump_alerts.h)
    // and the month's job costs for /metrics.
    Server* self = s.get();
    d.after_run = [self, last = std::make_shared<int64_t>(0)](int64_t now_ns) {
      if (*last != 0 && now_ns - *last < kBudgetCheckNs) return;
      *last = now_ns;
      Status st = self->CheckCosts(now_ns);
      if (!st.ok())
        std::fprintf(stderr, "gpufleet server: cost check: %s\n", st.ToString().c_str());
    };
  }
  s->detector_ = std::make_unique<DetectorLoop>(*s->engine_, *s->window_, *s->incidents_,
                                                s->alerts_.get(), s->captures_.get(), s->clock_, d);
  s->scraper_ = std::make_unique<ScrapeLoop>(c.scrape_targets, real(c.scrape_interval_ns),
                                             *s->ingester_, s->clock_);

  HttpApiOptions h;
  h.access = std::move(access);
  h.max_body_bytes = static_cast<size_t>(c.max_body_bytes);
  h.rate_limit.requests_per_second = c.requests_per_second;
  h.rate_limit.burst = c.burst;
  HttpApiBackend b;
  Server* self = s.get();
  b.ingester = s->ingester_.get();
  b.incidents = s->incidents_.get();
  b.inventory = s->inventory_.get();
  b.render_metrics = [self] { return self->RenderMetrics(); };
  b.run_detectors = [self] { return self->RunDetectorsOnce(); };
  b.ready = [self] { return self->started_.load(); };
  b.alerts = s->alerts_.get();  // canary incidents alert like detector ones
  b.external_url = c.external_url;
  b.console.window = s->window_.get();
  b.console.canary_runs = s->canary_runs_.get();
  b.console.longterm = s->longterm_.get();
  b.console.stale_after_ns = c.window_stale_after_ns;
  b.console.contention_region = contention_region;
  if (c.capture_enabled) b.console.capture_output_dir = c.capture_output_dir;
  b.console.data_clock = &s->clock_;
  b.console.alerts = s->alerts_.get();
  b.console.external_url = c.external_url;
  if (s->meter_ != nullptr) {
    b.console.incident_cost = [self](const detect::IncidentRecord& r) {
      return self->IncidentCostUsd(r);
    };
  }
  if (!c.place_inventory.empty()) {
    ASSIGN_OR_RETURN(std::unique_ptr<place::PlaceService> svc,
                     place::PlaceService::Create(
                         c.place_inventory, c.place_policy,
                         {c.place_throughputs,
                          PriceBookLookup(prices ? prices : std::make_shared<const cost::PriceBook>())}));
    std::shared_ptr<place::PlaceService> shared(std::move(svc));
    b.place = [shared](const std::string& body) {
      place::PlaceReply r = shared->Place(body);
      return std::make_pair(r.http_status, std::move(r.body));
    };
  }
  if (s->meter_ != nullptr) {
    b.cost = [self, prices](const std::string& path,
                            const std::map<std::string, std::string>& params) {
      return self->CostReport(*prices, path, params);
    };
  }
  // Planners read calibration data and traces from ../shared beside the
  // working directory (docs/plan.md); absent data is said in the answer.
  // Training ranks with measured_workload take the median of the steps the
  // agents reported in the last 30 minutes (the window store's data time).
  b.plan = [self](const std::string& kind, const std::string& body) {
    const plan::StepLookup lookup = [self](std::string_view workload, std::string_view node) {
      return self->StepsOf(workload, node, 30 * 60 * kNsPerSecond);
    };
    return plan::HandlePlanRequest(kind, body, "../shared", &lookup);
  };
  s->http_ = std::make_unique<HttpApi>(h, std::move(b), RealClock::Get(), std::move(http_server));
  return s;
}

Server::~Server() { Stop(); }

std::optional<plan::MeasuredSteps> Server::StepsOf(std::string_view workload, std::string_view node,
                                                   int64_t window_ns) {
  const int64_t now = clock_.NowNs();
  std::vector<double> steps;
  window_->ForEach("gpu_workload_step_duration_seconds", now - window_ns, now,
                   [&](const StoredLabels& labels, std::span<const WindowPoint> points) {
                     if (labels.Get("workload_name") != workload) return;
                     if (!node.empty() && labels.Get("node") != node) return;
                     for (const WindowPoint& p : points) {
                       if (std::isfinite(p.value) && p.value > 0) steps.push_back(p.value);
                     }
                   });
  if (steps.empty()) return std::nullopt;
  auto mid = steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2);
  std::nth_element(steps.begin(), mid, steps.end());
  return plan::MeasuredSteps{*mid, static_cast<int64_t>(steps.size()),
                             static_cast<double>(window_ns) / kNsPerSecond};
}

std::tuple<int, std::string, std::string> Server::CostReport(
    const cost::PriceBook& prices, const std::string& path,
    const std::map<std::string, std::string>& params) {
  int64_t now_s = clock_.NowNs() / kNsPerSecond;
  cost::ApiReply r;
  if (path == "/allocation") {
    r = cost::AllocationQuery(params, *meter_, *incidents_, prices, now_s);
  } else if (path == "/api/v1/cost/budgets") {
    r = cost::BudgetQuery(params, *meter_, *incidents_, prices, now_s);
  } else if (path == "/api/v1/cost/summary") {
    r = cost::SummaryQuery(params, *meter_, *work_meter_, *incidents_, prices, now_s);
  } else {
    r = cost::CostQuery(params, *meter_, *incidents_, prices, now_s, work_meter_.get());
  }
  return {r.status, std::move(r.content_type), std::move(r.body)};
}

std::optional<double> Server::IncidentCostUsd(const detect::IncidentRecord& r) {
  if (meter_ == nullptr || prices_ == nullptr) return std::nullopt;
  std::vector<cost::ContentionWindow> w =
      cost::ContentionWindows({r}, 0, std::numeric_limits<int64_t>::max() / 2);
  if (w.empty()) return std::nullopt;
  // Whole minutes covering the incident's window: the meter's grain.
  const int64_t from_s = w.front().start_s / 60 * 60;
  const int64_t to_s = (w.front().end_s / 60 + 1) * 60;
  StatusOr<std::vector<cost::MeteredDevice>> devices = meter_->Devices();
  StatusOr<std::shared_ptr<const std::vector<cost::Holder>>> holders = meter_->Holders();
  if (!devices.ok() || !holders.ok()) return std::nullopt;
  cost::MinuteScan scan = [&](const std::function<void(const cost::DeviceMinute&)>& fn) {
    return meter_->Scan(from_s, to_s, fn);
  };
  StatusOr<cost::Ledger> ledger = cost::ComputeLedger(
      *devices, *holders, scan, *prices_, w, prices_->owners(), cost::LedgerPolicy(), from_s, to_s);
  if (!ledger.ok()) return std::nullopt;
  int64_t micro = 0;
  for (const cost::ChargeLine& l : ledger->lines) {
    if (l.category == cost::Category::kContention && l.micro_usd > 0) micro += l.micro_usd;
  }
  return static_cast<double>(micro) / 1e6;
}

Status Server::Start() {
  ASSIGN_OR_RETURN(ListenAddress listen, ParseListenAddress(options_.config.listen, "listen"));
  RETURN_IF_ERROR(detector_->Recover());
  if (alerts_ != nullptr) alerts_->Start();
  RETURN_IF_ERROR(scraper_->Start());
  RETURN_IF_ERROR(http_->Start(listen.host, listen.port));
  if (options_.start_detector_loop) detector_->Start();
  started_ = true;
  return OkStatus();
}

void Server::Stop() {
  started_ = false;
  if (http_ != nullptr) http_->Stop();
  if (scraper_ != nullptr) scraper_->Stop();
  if (detector_ != nullptr) detector_->Stop();
  if (alerts_ != nullptr) alerts_->Stop();
  if (forwarder_ != nullptr) forwarder_->Stop();
  if (engine_ != nullptr) engine_->FlushBaselines().IgnoreError();
}

Status Server::RunDetectorsOnce() { return detector_->RunOnce(); }

Status Server::CheckCosts(int64_t now_ns) {
  const int64_t now_s = now_ns / kNsPerSecond;
  Status first = OkStatus();
  if (!prices_->budgets().empty()) {
    StatusOr<std::vector<cost::BudgetStatus>> statuses =
        cost::BudgetStatuses(*meter_, *incidents_, *prices_, now_s);
    Status st = statuses.status();
    if (st.ok()) {
      st = ApplyBudgetStatuses(*statuses, *incidents_, alerts_.get(), options_.config.external_url,
                               now_ns)
               .status();
    }
    if (first.ok()) first = st;
  }
  StatusOr<std::vector<cost::UnitCostChange>> changes =
      cost::UnitCostChangesAt(*meter_, *work_meter_, *incidents_, *prices_, now_s);
  Status st = changes.status();
  if (st.ok()) {
    st = ApplyCostJumps(*changes, *incidents_, alerts_.get(), options_.config.external_url, now_ns)
             .status();
  }
  if (first.ok()) first = st;
  const int64_t month_start = cost::MonthOf(now_s).first;
  StatusOr<std::vector<cost::JobCost>> jobs = cost::JobCostsFromStores(
      *meter_, *work_meter_, *incidents_, *prices_, month_start, now_s / 60 * 60);
  if (jobs.ok()) {
    std::lock_guard<std::mutex> lock(job_metrics_mu_);
    job_metrics_ = cost::RenderJobMetrics(*jobs, "month");
  }
  if (first.ok()) first = jobs.status();
  return first;
}

std::string Server::RenderMetrics() {
  std::string out;
  IngestCounters in = ingester_->counters();
  Metric(out, "gpufleet_server_write_requests_total", "counter", "Remote-write requests received.",
         static_cast<double>(in.requests));
  Metric(out, "gpufleet_server_write_requests_rejected_total", "counter",
         "Remote-write bodies that could not be decoded (HTTP 400).",
         static_cast<double>(in.requests_rejected));
  Metric(out, "gpufleet_server_samples_ingested_total", "counter",
         "Samples stored in the window store.", static_cast<double>(in.samples_accepted));
  Metric(out, "gpufleet_server_samples_rejected_total", "counter",
         "Samples dropped: invalid series, out of order or over the series limit.",
         static_cast<double>(in.samples_rejected));
  Metric(out, "gpufleet_server_inventory_errors_total", "counter",
         "gpu_info series that could not be recorded in the inventory.",
         static_cast<double>(in.inventory_errors));
  if (meter_ != nullptr && prices_ != nullptr) {
    // Mean tensor activity per device over the last 10 minutes of the window.
    std::map<std::string, double> activity;
    const int64_t now = clock_.NowNs();
    window_->ForEach("gpu_tensor_active_ratio", now - 600 * kNsPerSecond, now,
                     [&](const StoredLabels& labels, std::span<const WindowPoint> points) {
                       double sum = 0;
                       for (const WindowPoint& p : points) sum += p.value;
                       activity[detect::DeviceKey(labels)] =
                           sum / static_cast<double>(points.size());
                     });
    StatusOr<std::vector<cost::MeteredDevice>> devices = meter_->Devices();
    if (devices.ok()) out += cost::RenderCostMetrics(*devices, *prices_, activity);
    std::lock_guard<std::mutex> lock(job_metrics_mu_);
    out += job_metrics_;
  }
  if (meter_ != nullptr) {
    cost::MeterCounters m = meter_->counters();
    Metric(out, "gpufleet_cost_samples_metered_total", "counter",
           "Samples counted into the cost ledger's per-minute rollup.",
           static_cast<double>(m.samples_metered));
    Metric(out, "gpufleet_cost_samples_duplicate_total", "counter",
           "Samples the meter had already counted (retried or replayed writes).",
           static_cast<double>(m.samples_duplicate));
    Metric(out, "gpufleet_cost_fold_errors_total", "counter",
           "Folds of the meter's journal into the minute tables that failed (the journal "
           "keeps the writes; the next fold retries).",
           static_cast<double>(m.fold_errors));
    Metric(out, "gpufleet_cost_meter_errors_total", "counter",
           "Writes answered 503 because the meter could not commit them.",
           static_cast<double>(in.meter_errors));
  }
  WindowStore::Stats w = window_->stats();
  Metric(out, "gpufleet_server_window_series", "gauge", "Series held in the window store.",
         static_cast<double>(w.series));
  Metric(out, "gpufleet_server_window_points", "gauge", "Points held in the window store.",
         static_cast<double>(w.points));
  Metric(out, "gpufleet_server_window_memory_bytes", "gauge",
         "Estimated heap held by the window store.", static_cast<double>(w.memory_bytes));
  if (forwarder_ != nullptr) {
    ForwarderStats f = forwarder_->stats();
    Metric(out, "gpufleet_server_forward_sent_samples_total", "counter",
           "Samples forwarded to long-term storage.", static_cast<double>(f.sent_samples));
    Metric(out, "gpufleet_server_forward_retries_total", "counter",
           "Forwarding attempts that failed and will be retried.", static_cast<double>(f.retries));
    Metric(out, "gpufleet_server_forward_dropped_batches_total", "counter",
           "Batches dropped: rejected by the receiver or queue full.",
           static_cast<double>(f.dropped_rejected_batches + f.dropped_queue_full_batches));
    Metric(out, "gpufleet_server_forward_queue_bytes", "gauge",
           "Bytes waiting in the forwarding queue.", static_cast<double>(f.queue_bytes));
  }
  DetectorCounters d = detector_->counters();
  Metric(out, "gpufleet_server_detector_runs_total", "counter", "Detector evaluations.",
         static_cast<double>(d.runs));
  Metric(out, "gpufleet_server_detector_errors_total", "counter",
         "Detector runs whose incident writes failed.", static_cast<double>(d.errors));
  Metric(out, "gpufleet_server_incidents_opened_total", "counter", "Incidents opened.",
         static_cast<double>(d.incidents_opened));
  Metric(out, "gpufleet_server_incidents_resolved_total", "counter", "Incidents resolved.",
         static_cast<double>(d.incidents_resolved));
  StatusOr<int64_t> open = incidents_->CountOpen();
  Metric(out, "gpufleet_server_incidents_open", "gauge", "Incidents open now.",
         open.ok() ? static_cast<double>(*open) : -1);
  Metric(out, "gpufleet_server_captures_started_total", "counter",
         "Deep-instrumentation captures started.", static_cast<double>(d.captures_started));
  if (alerts_ != nullptr) {
    AlertSenderStats a = alerts_->stats();
    Metric(out, "gpufleet_server_alerts_sent_total", "counter", "Alerts delivered (per receiver).",
           static_cast<double>(a.sent));
    Metric(out, "gpufleet_server_alerts_failed_total", "counter",
           "Alerts given up on after retries (per receiver).", static_cast<double>(a.failed));
    Metric(out, "gpufleet_server_alerts_firing", "gauge", "Alerts firing now.",
           static_cast<double>(a.firing));
  }
  ScrapeCounters sc = scraper_->counters();
  Metric(out, "gpufleet_server_scrapes_total", "counter", "Agent scrapes.",
         static_cast<double>(sc.scrapes));
  Metric(out, "gpufleet_server_scrape_failures_total", "counter",
         "Agent scrapes that got no 200 answer.", static_cast<double>(sc.failures));
  return out;
}

}  // namespace gpufleet
