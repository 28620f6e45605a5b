#include "agent/agent_server.h"

#include <httplib.h>

#include "core/http_bind.h"
#include "core/strings.h"

namespace gpufleet {

AgentServer::AgentServer(Agent& agent) : agent_(agent), server_(std::make_unique<httplib::Server>()) {
  server_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    ExpositionFormat format = NegotiateExpositionFormat(req.get_header_value("Accept"));
    res.set_content(agent_.Render(format), std::string(ContentTypeFor(format)));
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    if (agent_.ready()) {
      res.set_content("ok\n", "text/plain");
    } else {
      res.status = 503;
      res.set_content("starting: first collection not finished\n", "text/plain");
    }
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(
        "<html><head><title>gpufleet agent</title></head><body><h1>gpufleet agent</h1>"
        "<p><a href=\"/metrics\">/metrics</a> canonical GPU metrics &middot; "
        "<a href=\"/healthz\">/healthz</a></p></body></html>\n",
        "text/html");
  });
}

AgentServer::~AgentServer() { Stop(); }

Status AgentServer::Start(const std::string& host, int port) {
  ASSIGN_OR_RETURN(port_, BindHttpListener(*server_, host, port));
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return OkStatus();
}

void AgentServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

Status ParseListenAddress(const std::string& value, std::string* host, int* port) {
  std::string_view v = value;
  size_t colon = v.rfind(':');
  std::string_view port_str = v;
  *host = "127.0.0.1";
  if (colon != std::string_view::npos) {
    std::string_view h = v.substr(0, colon);
    if (!h.empty() && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
    *host = h.empty() ? "0.0.0.0" : std::string(h);
    port_str = v.substr(colon + 1);
  }
  std::optional<int64_t> p = ParseInt64(port_str);
  if (!p || *p < 0 || *p > 65535) {
    return InvalidArgumentError("--listen: bad port in '" + value + "' (want host:port, :port or port)");
  }
  *port = static_cast<int>(*p);
  return OkStatus();
}

}  // namespace gpufleet
