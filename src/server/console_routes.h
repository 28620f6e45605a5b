// The web console on the server's port: GET / answers index.html and
// GET /assets/<file> the bundled JS and CSS, all embedded in the binary
// (console/console_assets.h). The assets hold no data and need no token;
// the console sends the user's token on its API calls. Every console answer
// carries kConsoleSecurityHeaders; the content-hashed assets are cacheable
// for a year, index.html is revalidated on every load.
//
// Thread safety: as HttpServer (register before Start).
#pragma once

#include <string_view>
#include <utility>

#include "net/http_server.h"

namespace gpufleet {

inline constexpr std::string_view kConsoleContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'";

inline constexpr std::pair<std::string_view, std::string_view> kConsoleSecurityHeaders[] = {
    {"Content-Security-Policy", kConsoleContentSecurityPolicy},
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "no-referrer"},
};

// Adds GET / (also /index.html) and GET /assets/<file> to `server`; an
// unknown asset is a 404 with the same headers.
void RegisterConsoleRoutes(HttpServer& server);

}  // namespace gpufleet
