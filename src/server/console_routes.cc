#include "server/console_routes.h"

#include <string>

#include "console/console_assets.h"

namespace gpufleet {
namespace {

void SecurityHeaders(HttpServerResponse& res) {
  for (const auto& [name, value] : kConsoleSecurityHeaders) {
    res.set_header(std::string(name), std::string(value));
  }
}

void Serve(const console::Asset* asset, HttpServerResponse& res) {
  SecurityHeaders(res);
  if (asset == nullptr) {
    res.set_status(404);
    res.set_content("not found\n", "text/plain; charset=utf-8");
    return;
  }
  res.set_header("Cache-Control",
                 asset->immutable ? "public, max-age=31536000, immutable" : "no-cache");
  res.set_content(std::string(asset->body), std::string(asset->content_type));
}

}  // namespace

void RegisterConsoleRoutes(HttpServer& server) {
  auto index = [](const HttpServerRequest&, HttpServerResponse& res) {
    Serve(console::FindAsset("index.html"), res);
  };
  server.Get("/", index);
  server.Get("/index.html", index);
  // One path segment of safe characters: nothing climbs out of assets/.
  server.Get(R"(/assets/([A-Za-z0-9._-]+))",
             [](const HttpServerRequest& req, HttpServerResponse& res) {
               Serve(console::FindAsset("assets/" + req.match(1)), res);
             });
}

}  // namespace gpufleet
