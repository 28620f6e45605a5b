#include "canary/verdict_push.h"

#include <nlohmann/json.hpp>

#include "net/url.h"

namespace gpufleet::canary {

using nlohmann::json;

StatusOr<std::string> PushVerdicts(HttpClient& client, const std::string& server_url,
                                   const std::string& token, const std::string& node,
                                   const std::string& gate_json, int timeout_ms) {
  json doc = json::parse(gate_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return InvalidArgumentError("canary push: the gate report is not a JSON object");
  }
  doc["node"] = node;
  StatusOr<HttpUrl> url = ParseHttpUrl(server_url);
  if (!url.ok()) return url.status().WithContext("--server");
  std::string endpoint = url->path;
  if (endpoint.empty() || endpoint.back() != '/') endpoint += "/";
  endpoint = (endpoint == "/" ? std::string() : endpoint.substr(0, endpoint.size() - 1)) +
             "/api/v1/canary";
  const std::string body = doc.dump();
  HttpRequest request;
  request.method = "POST";
  request.url = url->base + endpoint;
  request.body = body;
  request.content_type = "application/json";
  request.timeout_ns = static_cast<int64_t>(timeout_ms) * kNsPerMs;
  if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
  StatusOr<HttpResponse> res = client.Send(request);
  if (!res.ok()) return UnavailableError("canary push to " + std::string(res.status().message()));
  if (!res->ok()) {
    return UnavailableError("canary push to " + request.url + ": HTTP " +
                            std::to_string(res->status) + ": " + res->body);
  }
  return std::move(res->body);
}

StatusOr<std::string> PushVerdicts(const std::string& server_url, const std::string& token,
                                   const std::string& node, const std::string& gate_json,
                                   int timeout_ms) {
  return PushVerdicts(*NewHttpClient(), server_url, token, node, gate_json, timeout_ms);
}

}  // namespace gpufleet::canary
