#include "agent/agent_server.h"

#include "core/clock.h"
#include "core/strings.h"
#include "net/url.h"

namespace gpufleet {

AgentServer::AgentServer(Agent& agent, StepReports* steps)
    : agent_(agent), server_(std::make_unique<HttpServer>()) {
  server_->SetMaxBodyBytes(64 * 1024);
  server_->Post("/api/v1/steps", [steps](const HttpServerRequest& req, HttpServerResponse& res) {
    auto reply = [&](int status, const std::string& text) {
      res.set_status(status);
      res.set_content(text + "\n", "text/plain");
    };
    if (steps == nullptr) return reply(404, "this agent takes no step reports");
    std::string_view from = req.remote_addr();
    if (from.starts_with("::ffff:")) from.remove_prefix(7);  // IPv4 on a dual-stack socket
    if (!IsLoopbackHost(from)) {
      return reply(403, "step reports are taken from this host (loopback) only");
    }
    Status st = steps->Accept(req.body(), RealClock::Get().NowNs());
    if (!st.ok()) return reply(st.code() == StatusCode::kInvalidArgument ? 400 : 503, st.message());
    res.set_status(204);
  });
  server_->Get("/metrics", [this](const HttpServerRequest& req, HttpServerResponse& res) {
    ExpositionFormat format = NegotiateExpositionFormat(req.header("Accept"));
    res.set_content(agent_.Render(format), std::string(ContentTypeFor(format)));
  });
  server_->Get("/healthz", [this](const HttpServerRequest&, HttpServerResponse& res) {
    if (agent_.ready()) {
      res.set_content("ok\n", "text/plain");
    } else {
      res.set_status(503);
      res.set_content("starting: first collection not finished\n", "text/plain");
    }
  });
  server_->Get("/", [](const HttpServerRequest&, HttpServerResponse& res) {
    res.set_content(
        "<html><head><title>gpufleet agent</title></head><body><h1>gpufleet agent</h1>"
        "<p><a href=\"/metrics\">/metrics</a> canonical GPU metrics &middot; "
        "<a href=\"/healthz\">/healthz</a></p></body></html>\n",
        "text/html");
  });
}

AgentServer::~AgentServer() { Stop(); }

Status AgentServer::Start(const std::string& host, int port) {
  return server_->Start(host, port).status();
}

void AgentServer::Stop() { server_->Stop(); }

}  // namespace gpufleet
