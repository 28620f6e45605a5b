// Fuzzes the server's access rule on untrusted request lines: the method,
// path and Authorization header of any request (server/auth_limits.h). No
// crash; only 0, 401 or 403; never a write or an exposed read without a
// configured token in the header; open only for GET/HEAD.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/auth_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  // Input: "<method>\n<path>\n<authorization header>".
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t a = in.find('\n');
  std::string_view method = in.substr(0, a);
  std::string_view rest = a == std::string_view::npos ? std::string_view() : in.substr(a + 1);
  size_t b = rest.find('\n');
  std::string_view path = rest.substr(0, b);
  std::string_view header = b == std::string_view::npos ? std::string_view() : rest.substr(b + 1);

  AccessKind kind = ClassifyRequest(method, path);
  if (kind == AccessKind::kOpen && method != "GET" && method != "HEAD") std::abort();
  if (kind == AccessKind::kOpen && path.find("..") != std::string_view::npos) std::abort();
  for (bool beyond : {false, true}) {
    AccessPolicy policy{beyond, {"adm1n-token"}, {"r3ad-token"}};
    AccessDecision d = Authorize(policy, kind, header);
    if (d.http_status != 0 && d.http_status != 401 && d.http_status != 403) std::abort();
    if ((d.http_status == 0) != d.message.empty()) std::abort();
    if (d.http_status != 0) continue;
    if (kind == AccessKind::kWrite && header.find("adm1n-token") == std::string_view::npos) {
      std::abort();
    }
    if (kind == AccessKind::kRead && beyond &&
        header.find("adm1n-token") == std::string_view::npos &&
        header.find("r3ad-token") == std::string_view::npos) {
      std::abort();
    }
  }
  return 0;
}
