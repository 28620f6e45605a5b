#include "server/auth_limits.h"

#include <algorithm>
#include <cmath>

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

bool BearerAuthorized(std::string_view authorization_header, std::string_view token) {
  if (token.empty()) return true;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization_header.size() < kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    char c = authorization_header[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kScheme[i]) return false;
  }
  std::string_view presented = authorization_header.substr(kScheme.size());
  while (!presented.empty() && presented.front() == ' ') presented.remove_prefix(1);
  while (!presented.empty() && (presented.back() == ' ' || presented.back() == '\r')) {
    presented.remove_suffix(1);
  }
  return ConstantTimeEquals(presented, token);
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
