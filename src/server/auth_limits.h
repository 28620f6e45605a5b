// Request guards of the server's HTTP API: who may do what (the access rule
// below), bearer-token checks, body size limit and a per-client token-bucket
// rate limit.
//
// Thread safety: the free functions are pure; RateLimiter is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace gpufleet {

// Compares in time that depends only on the lengths, so a remote client
// cannot find the token byte by byte from response times.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// True when `authorization_header` is "Bearer <token>" (scheme
// case-insensitive, as RFC 6750 allows). An empty `token` means no
// protection: always true.
bool BearerAuthorized(std::string_view authorization_header, std::string_view token);

// What a request does, for the access rule.
enum class AccessKind {
  kOpen,   // static console assets and health probes: hold no data, no token ever
  kRead,   // GET / HEAD, and the POSTs that only compute an answer
  kWrite,  // everything else: changes state
};

// Classifies by method and path (without query). The exemptions are a fixed,
// explicit list: GET|HEAD "/", "/index.html", "/assets/<file>", "/-/healthy",
// "/-/ready" are kOpen; POST "/api/v1/place" and "/api/v1/plan/<kind>" are
// kRead (a placement or plan answer changes nothing). Any other GET/HEAD is
// kRead; any other method (POST, PUT, DELETE, PATCH, OPTIONS, ...) is kWrite,
// so a new route is covered the day it is added.
AccessKind ClassifyRequest(std::string_view method, std::string_view path);

// The tokens and exposure the rule decides by. Set once; read-only after.
struct AccessPolicy {
  // The server listens on a non-loopback address: reads need a token too.
  bool beyond_loopback = false;
  std::vector<std::string> admin_tokens;  // may read and write
  std::vector<std::string> read_tokens;   // may read only
};

struct AccessDecision {
  // 0: allowed. 401: no or unknown token (answer with WWW-Authenticate:
  // Bearer). 403: a read-only token on a write.
  int http_status = 0;
  std::string message;  // why, for the JSON error; empty when allowed
};

// The rule (docs/server.md#security):
//   kOpen                            always allowed;
//   kRead  on loopback               allowed (the header is not looked at);
//   kRead  beyond loopback           needs a read or an admin token;
//   kWrite with no admin token set   allowed (loopback only; see
//                                    CheckAccessPolicy);
//   kWrite                           needs an admin token; a read token is 403.
// Every configured token is compared in constant time, whichever matches.
AccessDecision Authorize(const AccessPolicy& policy, AccessKind kind,
                         std::string_view authorization_header);

// Refuses policies the rule cannot protect. Beyond loopback the server must
// serve TLS (`tls`) and have at least one admin token; read tokens without an
// admin token would leave writes open. Tokens must be non-empty printable
// ASCII without spaces (they travel in a header) and not in both lists.
// Errors: FailedPrecondition (exposure) or InvalidArgument (a token), saying
// what to configure; never quoting a token.
Status CheckAccessPolicy(const AccessPolicy& policy, bool tls);

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
