// Request guards of the server's HTTP API: bearer-token check, body size
// limit and a per-client token-bucket rate limit.
//
// Thread safety: the free functions are pure; RateLimiter is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"

namespace gpufleet {

// Compares in time that depends only on the lengths, so a remote client
// cannot find the token byte by byte from response times.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// True when `authorization_header` is "Bearer <token>" (scheme
// case-insensitive, as RFC 6750 allows). An empty `token` means no
// protection: always true.
bool BearerAuthorized(std::string_view authorization_header, std::string_view token);

struct RateLimitOptions {
  double requests_per_second = 50;  // refill rate; <= 0 disables limiting
  double burst = 100;               // bucket size
  size_t max_clients = 10000;       // tracked addresses; beyond it the idlest are forgotten
};

// One token bucket per client address.
class RateLimiter {
 public:
  RateLimiter(const RateLimitOptions& options, const Clock& clock)
      : options_(options), clock_(clock) {}

  // 0 when the request from `client` may proceed (a token is taken);
  // otherwise the whole seconds (>= 1) until a token is available, for the
  // Retry-After header of a 429.
  int64_t Admit(const std::string& client);

 private:
  struct Bucket {
    double tokens = 0;
    int64_t updated_ns = 0;
  };
  void EvictIdleLocked(int64_t now_ns);

  const RateLimitOptions options_;
  const Clock& clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;  // guarded by mu_
};

}  // namespace gpufleet
