// Binding an HTTP listener (cpp-httplib's Server, or anything with the same
// bind_to_any_port / bind_to_port calls) with errors that name the address.
// Header-only and templated so that core does not depend on httplib.
#pragma once

#include <string>

#include "core/status.h"

namespace gpufleet {

// Binds `server` to host:port (port 0 = any free port) and returns the bound
// port. Does not start listening.
template <typename HttpServer>
StatusOr<int> BindHttpListener(HttpServer& server, const std::string& host, int port) {
  if (port == 0) {
    int bound = server.bind_to_any_port(host);
    if (bound <= 0) return UnavailableError("cannot bind " + host + ":0");
    return bound;
  }
  if (!server.bind_to_port(host, port)) {
    return UnavailableError("cannot listen on " + host + ":" + std::to_string(port) +
                            " (in use or not permitted?)");
  }
  return port;
}

}  // namespace gpufleet
