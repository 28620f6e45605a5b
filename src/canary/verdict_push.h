// The client side of canary incidents: `gpufleet canary ... --server URL`
// posts the gate report to the server's /api/v1/canary, which opens and
// resolves incidents (server/canary_incidents.h is the receiving side).
//
// Thread safety: reentrant (each call makes its own request).
#pragma once

#include <string>

#include "core/status.h"
#include "net/http_client.h"

namespace gpufleet::canary {

// Posts `gate_json` (the output of FormatGateJson) with `node` added to
// `server_url` + /api/v1/canary, with `token` as a bearer token when not
// empty. Returns the server's reply body. Errors: InvalidArgument for a
// gate report that is not a JSON object or a bad --server URL; Unavailable
// naming the endpoint and the cause or the HTTP status and reply otherwise.
StatusOr<std::string> PushVerdicts(HttpClient& client, const std::string& server_url,
                                   const std::string& token, const std::string& node,
                                   const std::string& gate_json, int timeout_ms = 10000);
// The same over a fresh real client.
StatusOr<std::string> PushVerdicts(const std::string& server_url, const std::string& token,
                                   const std::string& node, const std::string& gate_json,
                                   int timeout_ms = 10000);

}  // namespace gpufleet::canary
