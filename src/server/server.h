// Server: `gpufleet server` wired together. Owns the state database
// connections (incidents, inventory, learned baselines: one SQLite file in
// WAL mode, one connection each), the in-memory window store, the optional
// remote-write forwarder, alert sender and capture runner, the detector and
// scrape loops and the HTTP API.
//
// Failure behaviour: a database that fails its integrity check, a bad detect
// config or an address in use fail Create/Start with a Status naming the
// place; after start, errors of one loop iteration are logged and counted
// (see /metrics) and the next iteration runs.
//
// Thread safety: Create/Start/Stop from one thread; the rest is thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "core/clock.h"
#include "core/status.h"
#include "cost/meter.h"
#include "cost/price_book.h"
#include "cost/work_meter.h"
#include "detect/baseline_store.h"
#include "detect/detection_engine.h"
#include "detect/incident_store.h"
#include "net/remote_write_forwarder.h"
#include "place/inventory_store.h"
#include "plan/plan_input.h"
#include "server/alert_sender.h"
#include "server/canary_runs.h"
#include "server/capture_runner.h"
#include "server/detector_loop.h"
#include "server/http_api.h"
#include "server/ingest.h"
#include "server/longterm_reader.h"
#include "server/scrape_loop.h"
#include "server/server_config.h"
#include "store/state_db.h"
#include "store/window_store.h"

namespace gpufleet {

struct ServerOptions {
  ServerConfig config;
  // Time of samples, incidents and detection; must outlive the server.
  // nullptr = the real clock.
  Clock* clock = nullptr;
  // How much faster `clock` runs than real time (loop periods are divided
  // by it). 1 for a real clock.
  double time_scale = 1;
  // Detector loop off (tests drive RunDetectorsOnce).
  bool start_detector_loop = true;
};

class Server {
 public:
  static StatusOr<std::unique_ptr<Server>> Create(const ServerOptions& options);
  ~Server();  // Stop()

  // Listens on config.listen and starts the loops.
  Status Start();
  void Stop();

  int port() const { return http_ != nullptr ? http_->port() : 0; }
  // Serving https ([tls] is set): the console's URL starts with https://.
  bool tls() const { return http_ != nullptr && http_->tls(); }
  Ingester& ingester() { return *ingester_; }
  detect::IncidentStore& incidents() { return *incidents_; }
  InventoryStore& inventory() { return *inventory_; }
  WindowStore& window() { return *window_; }
  Status RunDetectorsOnce();
  // Self-metrics in Prometheus text format.
  std::string RenderMetrics();
  // Budgets, cost-per-unit jumps and the month's job costs (for /metrics).
  Status CheckCosts(int64_t now_ns);
  // GET /api/v1/cost and /allocation (cost/cost_api.h): (HTTP status,
  // content type, body or error message).
  std::tuple<int, std::string, std::string> CostReport(
      const cost::PriceBook& prices, const std::string& path,
      const std::map<std::string, std::string>& params);
  // The contention cost the ledger attributes to incident `r` (charges to
  // the neighbours over its window, default policy), in USD; nullopt for
  // kinds the ledger does not charge, or when the ledger is off or fails.
  std::optional<double> IncidentCostUsd(const detect::IncidentRecord& r);
  // The steps `workload` reported (gpu_workload_step_duration_seconds'
  // workload_name; from `node` when not empty) in the window store over the
  // last `window_ns`: their median and count (the training planner's
  // measured_workload); nullopt when there are none.
  std::optional<plan::MeasuredSteps> StepsOf(std::string_view workload, std::string_view node,
                                             int64_t window_ns);

 private:
  explicit Server(const ServerOptions& options);

  const ServerOptions options_;
  Clock& clock_;
  // Declaration order is destruction order in reverse: loops and senders
  // stop before the stores they write to go away.
  std::unique_ptr<StateDb> incident_db_;
  std::unique_ptr<StateDb> inventory_db_;
  std::unique_ptr<StateDb> cost_db_;  // the Meter's
  std::unique_ptr<StateDb> work_db_;  // the WorkMeter's: a connection serves one thread at a time
  std::unique_ptr<StateDb> canary_runs_db_;
  std::unique_ptr<CanaryRuns> canary_runs_;
  std::unique_ptr<LongtermReader> longterm_;
  std::unique_ptr<cost::Meter> meter_;
  std::unique_ptr<cost::WorkMeter> work_meter_;
  std::mutex job_metrics_mu_;
  std::string job_metrics_;  // gpu_workload_cost_* text of the last cost check; guarded
  std::shared_ptr<const cost::PriceBook> prices_;
  std::unique_ptr<detect::IncidentStore> incidents_;
  std::unique_ptr<InventoryStore> inventory_;
  std::unique_ptr<detect::BaselineStore> baselines_;
  std::unique_ptr<WindowStore> window_;
  std::unique_ptr<RemoteWriteForwarder> forwarder_;
  std::unique_ptr<detect::DetectionEngine> engine_;
  std::unique_ptr<AlertSender> alerts_;
  std::unique_ptr<CaptureRunner> captures_;
  std::unique_ptr<Ingester> ingester_;
  std::unique_ptr<DetectorLoop> detector_;
  std::unique_ptr<ScrapeLoop> scraper_;
  std::unique_ptr<HttpApi> http_;
  std::atomic<bool> started_{false};
};

}  // namespace gpufleet
