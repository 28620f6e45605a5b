// FakeHttpClient: an HttpClient for tests that answers from a handler and
// records every request, with no socket. A handler may return an error
// Status to play a connection failure.
//
// Thread safety: Send, requests and SetHandler may be called from any thread.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "net/http_client.h"

namespace gpufleet {

// A request as the fake saw it (the body copied, since HttpRequest only
// borrows it).
struct RecordedHttpRequest {
  std::string method;
  std::string url;
  HttpHeaders headers;
  std::string body;
  std::string content_type;
  int64_t timeout_ns = 0;

  std::string Header(std::string_view name) const { return FindHeader(headers, name); }
};

class FakeHttpClient final : public HttpClient {
 public:
  using Handler = std::function<StatusOr<HttpResponse>(const RecordedHttpRequest&)>;

  // Without a handler every request gets 200 with an empty body.
  explicit FakeHttpClient(Handler handler = nullptr) : handler_(std::move(handler)) {}

  void SetHandler(Handler handler);
  StatusOr<HttpResponse> Send(const HttpRequest& request) override;
  void Cancel() override;

  std::vector<RecordedHttpRequest> requests() const;
  int cancels() const;

 private:
  mutable std::mutex mu_;
  // Guarded by mu_.
  Handler handler_;
  std::vector<RecordedHttpRequest> requests_;
  int cancels_ = 0;
};

}  // namespace gpufleet
