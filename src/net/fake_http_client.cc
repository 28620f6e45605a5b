#include "net/fake_http_client.h"

#include "net/url.h"

namespace gpufleet {

void FakeHttpClient::SetHandler(Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

StatusOr<HttpResponse> FakeHttpClient::Send(const HttpRequest& request) {
  // The same URL check as the real client, so tests see its errors.
  RETURN_IF_ERROR(ParseHttpUrl(request.url).status());
  RecordedHttpRequest recorded{request.method,       request.url,
                               request.headers,      std::string(request.body),
                               request.content_type, request.timeout_ns};
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(recorded);
    handler = handler_;
  }
  if (!handler) {
    HttpResponse ok;
    ok.status = 200;
    return ok;
  }
  return handler(recorded);
}

void FakeHttpClient::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  ++cancels_;
}

std::vector<RecordedHttpRequest> FakeHttpClient::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int FakeHttpClient::cancels() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancels_;
}

}  // namespace gpufleet
