#include "net/http_client.h"

#include <httplib.h>

#include <mutex>

#include "core/file_util.h"
#include "core/strings.h"
#include "net/url.h"

namespace gpufleet {

std::string FindHeader(const HttpHeaders& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

namespace {

// cpp-httplib behind HttpClient. The httplib::Client of the last base URL is
// kept when keep_alive is set, so a run of requests to one receiver reuses
// its connection.
class HttplibClient final : public HttpClient {
 public:
  explicit HttplibClient(const HttpClientOptions& options) : options_(options) {}

  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    ASSIGN_OR_RETURN(HttpUrl url, ParseHttpUrl(request.url));
    const bool https = StartsWith(url.base, "https://");
    if (https && !options_.ca_file.empty()) {
      // httplib would only say "SSL server verification failed".
      StatusOr<std::string> ca = ReadFileToString(options_.ca_file);
      if (!ca.ok()) return ca.status().WithContext(request.url + ": CA file");
    }
    httplib::Client* client = ClientFor(url.base);
    const time_t sec = static_cast<time_t>(request.timeout_ns / kNsPerSecond);
    const time_t usec = static_cast<time_t>((request.timeout_ns % kNsPerSecond) / 1000);
    client->set_connection_timeout(sec, usec);
    client->set_read_timeout(sec, usec);
    client->set_write_timeout(sec, usec);
    httplib::Headers headers(request.headers.begin(), request.headers.end());
    httplib::Result result =
        request.method == "POST"
            ? client->Post(url.path, headers, request.body.data(), request.body.size(),
                           request.content_type)
            : client->Get(url.path, headers);
    if (!options_.keep_alive) Release();
    if (!result) {
      std::string cause = httplib::to_string(result.error());
      if (result.error() == httplib::Error::SSLServerVerification) {
        cause += " (the server's certificate is not signed by a trusted CA" +
                 std::string(options_.ca_file.empty() ? "" : " in " + options_.ca_file) +
                 ", or does not name this host)";
      }
      return UnavailableError(request.url + ": " + cause);
    }
    HttpResponse response;
    response.status = result->status;
    response.body = std::move(result->body);
    response.headers.assign(result->headers.begin(), result->headers.end());
    return response;
  }

  void Cancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (client_ != nullptr) client_->stop();
  }

 private:
  httplib::Client* ClientFor(const std::string& base) {
    std::lock_guard<std::mutex> lock(mu_);
    if (client_ == nullptr || base_ != base) {
      client_ = std::make_unique<httplib::Client>(base);
      client_->set_keep_alive(options_.keep_alive);
      // A request's headers and body go out in two writes: with Nagle's
      // algorithm the body waits for the ACK of the headers, which the
      // receiver delays (40 ms on Linux), so each request took 40 ms more.
      client_->set_tcp_nodelay(true);
      if (!options_.ca_file.empty()) client_->set_ca_cert_path(options_.ca_file);
      client_->enable_server_certificate_verification(true);
      base_ = base;
    }
    return client_.get();
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    client_.reset();
  }

  const HttpClientOptions options_;
  std::mutex mu_;
  // Guarded by mu_ (Cancel reaches it from another thread).
  std::unique_ptr<httplib::Client> client_;
  std::string base_;
};

}  // namespace

std::unique_ptr<HttpClient> NewHttpClient(const HttpClientOptions& options) {
  return std::make_unique<HttplibClient>(options);
}

HttpHeaders BearerHeader(const std::string& token) {
  if (token.empty()) return {};
  return {{"Authorization", "Bearer " + token}};
}

StatusOr<std::string> HttpGet(HttpClient& client, const std::string& url, int64_t timeout_ns,
                              const HttpHeaders& headers) {
  HttpRequest request;
  request.url = url;
  request.timeout_ns = timeout_ns;
  request.headers = headers;
  ASSIGN_OR_RETURN(HttpResponse response, client.Send(request));
  if (response.status != 200) {
    const std::string first_line = response.body.substr(0, response.body.find('\n'));
    std::string_view line = TrimWhitespace(first_line);
    std::string detail = line.empty() ? "" : ": " + std::string(line.substr(0, 200));
    return UnavailableError(url + ": HTTP " + std::to_string(response.status) + detail);
  }
  return std::move(response.body);
}

StatusOr<std::string> HttpGet(const std::string& url, int64_t timeout_ns) {
  return HttpGet(*NewHttpClient(), url, timeout_ns);
}

}  // namespace gpufleet
