// HttpClient: the one seam through which gpufleet makes HTTP requests
// (remote write, Alertmanager and webhooks, scraping agents and exporters,
// pushing canary verdicts, the CLI asking a server). NewHttpClient() is the
// real one (cpp-httplib: http, and https verified against the system's CAs or
// a given CA file); FakeHttpClient (net/fake_http_client.h)
// answers from a handler in the test, with no socket.
//
// Thread safety: one request at a time per client (callers serialize Send);
// Cancel may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace gpufleet {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// The first header of that name (case-insensitive); "" when absent.
std::string FindHeader(const HttpHeaders& headers, std::string_view name);

struct HttpRequest {
  std::string method = "GET";  // "GET" or "POST"
  std::string url;             // http://host[:port]/path[?query]
  HttpHeaders headers;
  std::string_view body;     // POST only; must stay valid until Send returns
  std::string content_type;  // of `body`
  int64_t timeout_ns = 10 * kNsPerSecond;  // connect, read and write, each
};

struct HttpResponse {
  int status = 0;
  std::string body;
  HttpHeaders headers;

  std::string Header(std::string_view name) const { return FindHeader(headers, name); }
  bool ok() const { return status >= 200 && status < 300; }
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;

  // Sends one request. Any HTTP answer is a response, whatever its status.
  // Errors: InvalidArgument for a malformed URL; Unavailable when no answer
  // came (refused, timed out, cancelled), as "<url>: <cause>".
  virtual StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;

  // Aborts the request in flight, if any; later Sends proceed normally.
  virtual void Cancel() {}
};

struct HttpClientOptions {
  // Keep the connection to the last host open between requests (the
  // remote-write forwarder sends many to one receiver).
  bool keep_alive = false;
  // https: trust the CA certificates (PEM) in this file instead of the
  // system's; "" = the system's. The server's name or address must match
  // its certificate either way. A missing file fails every https request.
  // (Every member has an initializer, so `{.keep_alive = true}` is complete.)
  std::string ca_file{};
};

// The real client over TCP: http, and https through OpenSSL (Debian's
// cpp-httplib is built with it).
std::unique_ptr<HttpClient> NewHttpClient(const HttpClientOptions& options = {});

// {"Authorization", "Bearer <token>"}, or no header when `token` is empty.
HttpHeaders BearerHeader(const std::string& token);

// GETs `url` (with `headers`) and returns the body of a 200 answer. Errors
// name the URL and the cause or the HTTP status and the first line of the
// answer's body ("<url>: HTTP 404", "<url>: HTTP 401: {"error":...}").
StatusOr<std::string> HttpGet(HttpClient& client, const std::string& url, int64_t timeout_ns,
                              const HttpHeaders& headers = {});
// The same over a fresh real client.
StatusOr<std::string> HttpGet(const std::string& url, int64_t timeout_ns);

}  // namespace gpufleet
