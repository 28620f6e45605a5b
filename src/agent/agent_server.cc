#include "agent/agent_server.h"

#include "core/strings.h"

namespace gpufleet {

AgentServer::AgentServer(Agent& agent) : agent_(agent), server_(std::make_unique<HttpServer>()) {
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
