// URL and listen-address parsing for every HTTP endpoint gpufleet talks to or
// serves: remote-write receivers, Alertmanager and webhooks, scrape targets,
// the server's API, the agent's and the extender's --listen flags.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace gpufleet {

struct HttpUrl {
  std::string base;    // "http://host:port" (scheme, host and port as written)
  std::string host;    // "host:port" as written, without the scheme
  std::string path;    // "/api/v1/write?x=1"; `default_path` when the URL has none
  std::string Full() const { return base + path; }
};

// Splits "http(s)://host[:port][/path]". `default_path` stands in for a
// missing path. Errors (InvalidArgument) quote the URL: another scheme, no
// host.
StatusOr<HttpUrl> ParseHttpUrl(std::string_view url, std::string_view default_path = "/");

struct ListenAddress {
  std::string host;
  int port = 0;  // 0 = any free port
};

// Parses "host:port", "[v6]:port", ":port" (all interfaces, 0.0.0.0) or
// "port" (loopback, 127.0.0.1). Errors name the bad value and the flag it
// came from (`flag`, e.g. "--listen").
StatusOr<ListenAddress> ParseListenAddress(std::string_view value,
                                           std::string_view flag = "--listen");

// Percent-encodes everything but RFC 3986's unreserved characters, for a
// query parameter's value ("{__name__=\"x\"}[1h]" -> "%7B__name__%3D%22x%22%7D%5B1h%5D").
std::string PercentEncode(std::string_view value);
// True for hosts that only this machine can reach: "localhost", 127.0.0.0/8
// in dotted form, "::1" (brackets allowed). Everything else, including
// 0.0.0.0, "::" and names that may resolve anywhere, is beyond loopback.
bool IsLoopbackHost(std::string_view host);

}  // namespace gpufleet
