#include "server/auth_limits.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace gpufleet {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Length is not secret (token lengths are public knowledge); the content is.
  if (a.size() != b.size()) return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = diff | static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

namespace {

// The token of "Bearer <token>" (scheme case-insensitive, spaces trimmed);
// nullopt for another scheme or no token.
std::optional<std::string_view> PresentedBearer(std::string_view authorization_header) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization_header.size() < kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    char c = authorization_header[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kScheme[i]) return std::nullopt;
  }
  std::string_view presented = authorization_header.substr(kScheme.size());
  while (!presented.empty() && presented.front() == ' ') presented.remove_prefix(1);
  while (!presented.empty() && (presented.back() == ' ' || presented.back() == '\r')) {
    presented.remove_suffix(1);
  }
  if (presented.empty()) return std::nullopt;
  return presented;
}

// Matches `presented` against every token of `tokens` (no early exit, so the
// time says nothing about which one, if any, matched).
bool MatchesAny(std::string_view presented, const std::vector<std::string>& tokens) {
  bool any = false;
  for (const std::string& t : tokens) any = any | ConstantTimeEquals(presented, t);
  return any;
}

bool IsExemptAsset(std::string_view path) {
  // No traversal or doubled separators: what is open must be exactly a file
  // name under /assets/.
  if (path.find("..") != std::string_view::npos || path.find("//") != std::string_view::npos ||
      path.find('\\') != std::string_view::npos) {
    return false;
  }
  constexpr std::string_view kAssets = "/assets/";
  return path.size() > kAssets.size() && path.substr(0, kAssets.size()) == kAssets;
}

AccessDecision Deny(int status, std::string message) { return {status, std::move(message)}; }

}  // namespace

bool BearerAuthorized(std::string_view authorization_header, std::string_view token) {
  if (token.empty()) return true;
  std::optional<std::string_view> presented = PresentedBearer(authorization_header);
  return presented.has_value() && ConstantTimeEquals(*presented, token);
}

AccessKind ClassifyRequest(std::string_view method, std::string_view path) {
  if (method == "GET" || method == "HEAD") {
    // The console's page and bundled assets, the favicon browsers ask for on
    // their own, and the probes: none holds data.
    static constexpr std::string_view kOpenPaths[] = {"/", "/index.html", "/favicon.ico",
                                                      "/-/healthy", "/-/ready"};
    for (std::string_view open : kOpenPaths) {
      if (path == open) return AccessKind::kOpen;
    }
    return IsExemptAsset(path) ? AccessKind::kOpen : AccessKind::kRead;
  }
  if (method == "POST") {
    // Computations that change nothing: the placement and planning answers.
    constexpr std::string_view kPlan = "/api/v1/plan/";
    if (path == "/api/v1/place") return AccessKind::kRead;
    if (path.size() > kPlan.size() && path.substr(0, kPlan.size()) == kPlan &&
        path.find('/', kPlan.size()) == std::string_view::npos) {
      return AccessKind::kRead;
    }
  }
  return AccessKind::kWrite;
}

AccessDecision Authorize(const AccessPolicy& policy, AccessKind kind,
                         std::string_view authorization_header) {
  if (kind == AccessKind::kOpen) return {};
  if (kind == AccessKind::kRead && !policy.beyond_loopback) return {};
  if (kind == AccessKind::kWrite && policy.admin_tokens.empty()) return {};
  std::optional<std::string_view> presented = PresentedBearer(authorization_header);
  const bool admin = presented.has_value() && MatchesAny(*presented, policy.admin_tokens);
  const bool read = presented.has_value() && MatchesAny(*presented, policy.read_tokens);
  if (kind == AccessKind::kRead) {
    if (admin || read) return {};
    return Deny(401, presented.has_value() ? "unknown bearer token"
                                           : "this server needs a bearer token for reads "
                                             "(Authorization: Bearer <read or admin token>)");
  }
  if (admin) return {};
  if (read) return Deny(403, "a read-only token cannot write; this needs an admin token");
  return Deny(401, presented.has_value() ? "unknown bearer token"
                                         : "missing bearer token: writes need an admin token "
                                           "(Authorization: Bearer <token>)");
}

Status CheckAccessPolicy(const AccessPolicy& policy, bool tls) {
  auto check = [](const std::vector<std::string>& tokens, std::string_view what) -> Status {
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string& t = tokens[i];
      bool printable =
          !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c > ' ' && c < 0x7f; });
      if (!printable) {
        return InvalidArgumentError(std::string(what) + " #" + std::to_string(i + 1) +
                                    " is empty or has spaces or non-printable characters "
                                    "(it travels in an HTTP header)");
      }
    }
    return OkStatus();
  };
  RETURN_IF_ERROR(check(policy.admin_tokens, "admin token"));
  RETURN_IF_ERROR(check(policy.read_tokens, "read token"));
  for (const std::string& r : policy.read_tokens) {
    if (MatchesAny(r, policy.admin_tokens)) {
      return InvalidArgumentError(
          "a token is both an admin token and a read token; give each role its own");
    }
  }
  if (!policy.read_tokens.empty() && policy.admin_tokens.empty()) {
    return FailedPreconditionError(
        "read tokens are set but no admin token: writes would be open to anyone; set an admin "
        "token (token, token_file, --token or GPUFLEET_ADMIN_TOKEN)");
  }
  if (!policy.beyond_loopback) return OkStatus();
  std::string missing;
  if (!tls) missing = "TLS ([tls] cert_file and key_file)";
  if (policy.admin_tokens.empty()) {
    missing += std::string(missing.empty() ? "" : " and ") +
               "an admin token (token, token_file, --token or GPUFLEET_ADMIN_TOKEN)";
  }
  if (!missing.empty()) {
    return FailedPreconditionError(
        "refusing to listen beyond loopback without " + missing +
        ": anyone who can reach the port could read the fleet and write to it; configure it, "
        "or listen on 127.0.0.1");
  }
  return OkStatus();
}

int64_t RateLimiter::Admit(const std::string& client) {
  if (options_.requests_per_second <= 0) return 0;
  int64_t now_ns = clock_.MonotonicNs();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(client);
  if (it == buckets_.end()) {
    if (buckets_.size() >= options_.max_clients) EvictIdleLocked(now_ns);
    it = buckets_.emplace(client, Bucket{options_.burst, now_ns}).first;
  }
  Bucket& b = it->second;
  double elapsed_s = static_cast<double>(now_ns - b.updated_ns) / kNsPerSecond;
  b.tokens =
      std::min(options_.burst, b.tokens + std::max(0.0, elapsed_s) * options_.requests_per_second);
  b.updated_ns = now_ns;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  double wait_s = (1 - b.tokens) / options_.requests_per_second;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(wait_s)));
}

void RateLimiter::EvictIdleLocked(int64_t now_ns) {
  // A bucket that has refilled completely carries no state worth keeping.
  double full_after_s = options_.burst / options_.requests_per_second;
  int64_t full_after_ns = static_cast<int64_t>(full_after_s * kNsPerSecond);
  std::erase_if(buckets_,
                [&](const auto& kv) { return now_ns - kv.second.updated_ns >= full_after_ns; });
  if (buckets_.size() >= options_.max_clients) {
    // Everyone is active: forget the idlest one so memory stays bounded.
    auto idlest = std::min_element(
        buckets_.begin(), buckets_.end(),
        [](const auto& a, const auto& b) { return a.second.updated_ns < b.second.updated_ns; });
    buckets_.erase(idlest);
  }
}

}  // namespace gpufleet
