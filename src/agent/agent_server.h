// AgentServer: serves an Agent's snapshot over HTTP.
//   GET /metrics  Prometheus text 0.0.4 or OpenMetrics 1.0 (Accept header)
//   GET /healthz  200 "ok" once the first collection finished, else 503
//   GET /         a short index page
//   POST /api/v1/steps  a workload's step durations (agent/step_reports.h),
//                 from loopback only (403 otherwise); 204, or 400 naming
//                 the field; 404 when the agent takes no step reports
// Handlers only render the latest snapshot; they never wait for a
// collection, so a hung vendor call cannot block a scrape.
//
// Thread safety: Start/Stop from one thread; handlers run on the server's
// thread pool.
#pragma once

#include <memory>
#include <string>

#include "agent/agent.h"
#include "agent/step_reports.h"
#include "core/status.h"
#include "net/http_server.h"

namespace gpufleet {

class AgentServer {
 public:
  // `steps` may be null (no /api/v1/steps); it must outlive the server.
  explicit AgentServer(Agent& agent, StepReports* steps = nullptr);
  ~AgentServer();

  // Binds host:port (port 0 = any free port) and starts serving in the
  // background. Errors name the address.
  Status Start(const std::string& host, int port);
  void Stop();
  // The bound port (useful with port 0).
  int port() const { return server_->port(); }

 private:
  Agent& agent_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace gpufleet
