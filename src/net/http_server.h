// HttpServer: the one seam through which gpufleet serves HTTP (the agent's
// /metrics, the server's API, the Kubernetes scheduler extender). Routes are
// regular expressions matched against the whole path; a handler reads an
// HttpServerRequest and fills an HttpServerResponse. HttpServer::NewTls
// serves HTTPS (TLS 1.2 or newer) from a PEM certificate and key instead.
// cpp-httplib and OpenSSL do the work; their types stay in net/.
//
// Thread safety: add routes and options before Start; handlers run on the
// server's thread pool, concurrently; Start/Stop from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "core/status.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace gpufleet {

// A request as a handler sees it; valid during the handler call only.
class HttpServerRequest {
 public:
  const std::string& body() const;
  const std::string& remote_addr() const;
  const std::string& method() const;  // "GET", "POST", ...
  const std::string& path() const;    // without the query string
  // The first header of that name (case-insensitive); "" when absent.
  std::string header(std::string_view name) const;
  bool has_param(std::string_view name) const;
  // The first query parameter of that name; "" when absent.
  std::string param(std::string_view name) const;
  // Capture group `i` of the route's pattern (0 = the whole path).
  std::string match(size_t i) const;

 private:
  friend class HttpServer;
  explicit HttpServerRequest(const httplib::Request& impl) : impl_(impl) {}
  const httplib::Request& impl_;
};

// The answer a handler fills; 200 with an empty body unless set.
class HttpServerResponse {
 public:
  void set_status(int status);
  void set_content(const std::string& body, const std::string& content_type);
  void set_header(const std::string& name, const std::string& value);
  // Streams `bytes` bytes of the file at `path` as the body, in chunks, so a
  // large file is never held in memory. A file that ends early (or cannot
  // be opened) ends the connection mid-body rather than padding it.
  void set_file(const std::string& path, uint64_t bytes, const std::string& content_type);

 private:
  friend class HttpServer;
  explicit HttpServerResponse(httplib::Response& impl) : impl_(impl) {}
  httplib::Response& impl_;
};

// Where an HTTPS server finds its identity.
struct HttpServerTls {
  std::string cert_file;  // PEM: the server's certificate first, then any intermediates
  std::string key_file;   // PEM: its private key, unencrypted
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpServerRequest&, HttpServerResponse&)>;
  // Runs before routing; returns true when it answered the request itself
  // (the route is then skipped), e.g. a rate limit.
  using Filter = std::function<bool(const HttpServerRequest&, HttpServerResponse&)>;

  HttpServer();   // plain HTTP
  ~HttpServer();  // calls Stop()

  // An HTTPS server. Errors (InvalidArgument) name the file: unreadable,
  // no PEM certificate or key in it, an encrypted key, a key that does not
  // match the certificate, a certificate that has expired.
  static StatusOr<std::unique_ptr<HttpServer>> NewTls(const HttpServerTls& tls);
  bool tls() const { return tls_; }

  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);
  void SetFilter(Filter filter);
  // Larger request bodies are answered 413 without reaching a handler.
  void SetMaxBodyBytes(size_t bytes);

  // Binds host:port (port 0 = any free port) and serves on a background
  // thread. Returns the bound port. Errors (Unavailable) name the address.
  StatusOr<int> Start(const std::string& host, int port);
  // Stops serving and joins the thread. Idempotent.
  void Stop();
  int port() const { return port_; }

 private:
  HttpServer(std::unique_ptr<httplib::Server> impl, bool tls);

  std::unique_ptr<httplib::Server> impl_;
  bool tls_ = false;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace gpufleet
