#include "net/http_server.h"

#include <httplib.h>

#include <chrono>

namespace gpufleet {

const std::string& HttpServerRequest::body() const { return impl_.body; }
const std::string& HttpServerRequest::remote_addr() const { return impl_.remote_addr; }
std::string HttpServerRequest::header(std::string_view name) const {
  return impl_.get_header_value(std::string(name));
}
bool HttpServerRequest::has_param(std::string_view name) const {
  return impl_.has_param(std::string(name));
}
std::string HttpServerRequest::param(std::string_view name) const {
  return impl_.get_param_value(std::string(name));
}
std::string HttpServerRequest::match(size_t i) const {
  return i < impl_.matches.size() ? std::string(impl_.matches[i]) : std::string();
}

void HttpServerResponse::set_status(int status) { impl_.status = status; }
void HttpServerResponse::set_content(const std::string& body, const std::string& content_type) {
  impl_.set_content(body, content_type);
}
void HttpServerResponse::set_header(const std::string& name, const std::string& value) {
  impl_.set_header(name, value);
}

namespace {

// cpp-httplib (0.11) compresses a response with brotli at quality 11 when
// the client accepts "br", as every browser does: about 13 s for a 2.8 MB
// JSON answer (the inventory of 10,000 GPUs) against 0.5 s with gzip. Offer
// it gzip only. The request object is httplib's own non-const one, handed
// to handlers as const; the encoding is chosen from it after the handler.
void OfferGzipOnly(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  auto it = headers.find("Accept-Encoding");
  if (it == headers.end() || it->second.find("br") == std::string::npos) return;
  it->second = it->second.find("gzip") != std::string::npos ? "gzip" : "identity";
}

}  // namespace

HttpServer::HttpServer() : impl_(std::make_unique<httplib::Server>()) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Get(const std::string& pattern, Handler handler) {
  impl_->Get(pattern, [handler = std::move(handler)](const httplib::Request& req,
                                                     httplib::Response& res) {
    OfferGzipOnly(req);
    HttpServerResponse response(res);
    handler(HttpServerRequest(req), response);
  });
}

void HttpServer::Post(const std::string& pattern, Handler handler) {
  impl_->Post(pattern, [handler = std::move(handler)](const httplib::Request& req,
                                                      httplib::Response& res) {
    OfferGzipOnly(req);
    HttpServerResponse response(res);
    handler(HttpServerRequest(req), response);
  });
}

void HttpServer::SetFilter(Filter filter) {
  impl_->set_pre_routing_handler([filter = std::move(filter)](const httplib::Request& req,
                                                              httplib::Response& res) {
    HttpServerResponse response(res);
    return filter(HttpServerRequest(req), response)
               ? httplib::Server::HandlerResponse::Handled
               : httplib::Server::HandlerResponse::Unhandled;
  });
}

void HttpServer::SetMaxBodyBytes(size_t bytes) { impl_->set_payload_max_length(bytes); }

StatusOr<int> HttpServer::Start(const std::string& host, int port) {
  if (port == 0) {
    port_ = impl_->bind_to_any_port(host);
    if (port_ <= 0) return UnavailableError("cannot bind " + host + ":0");
  } else {
    if (!impl_->bind_to_port(host, port)) {
      return UnavailableError("cannot listen on " + host + ":" + std::to_string(port) +
                              " (in use or not permitted?)");
    }
    port_ = port;
  }
  thread_ = std::thread([this] { impl_->listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs, so a Stop right after Start
  // would leave the thread serving forever: wait for the loop (it starts at once).
  while (!impl_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return port_;
}

void HttpServer::Stop() {
  if (impl_) impl_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gpufleet
