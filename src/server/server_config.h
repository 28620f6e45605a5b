// ServerConfig: everything `gpufleet server` is told, from TOML
// (data/server/default.toml embedded; --config FILE on top; flags last).
//
// Errors: InvalidArgument naming origin:line and the key. Plain value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "detect/incident_lifecycle.h"
#include "server/auth_limits.h"

namespace gpufleet {

struct ServerConfig {
  std::string listen = "127.0.0.1:9840";
  std::string db_path = "gpufleet.db";
  std::string external_url;
  // Bearer tokens (docs/server.md#security): admin tokens may write and read,
  // read tokens only read. The *_file keys name files of one token a line.
  std::string token;  // admin
  std::string token_file;
  std::vector<std::string> read_tokens;
  std::string read_token_file;
  // [tls]: serve HTTPS from these PEM files (both or neither).
  std::string tls_cert_file;
  std::string tls_key_file;

  int64_t window_retention_ns = 30LL * 60 * 1'000'000'000;
  int64_t window_max_series = 2'000'000;
  // GET /api/v1/fleet counts a device "stale" when its newest sample is older.
  int64_t window_stale_after_ns = 5LL * 60 * 1'000'000'000;

  int64_t max_body_bytes = 16 << 20;
  double requests_per_second = 50;
  double burst = 100;

  std::string forward_url;
  std::string forward_token;
  std::string forward_queue_dir = "gpufleet-forward-queue";
  int64_t forward_queue_max_bytes = 512LL << 20;

  // [longterm]: the long-term store's Prometheus query API root (e.g. the
  // VictoriaMetrics the server forwards to), read by GET /api/v1/series for
  // ranges older than the window. "" = none (such answers are "partial").
  std::string longterm_query_url;
  std::string longterm_token;
  int64_t longterm_timeout_ns = 10'000'000'000;

  std::vector<std::string> scrape_targets;
  int64_t scrape_interval_ns = 15'000'000'000;

  int64_t detect_interval_ns = 10'000'000'000;
  int64_t resolve_after_ns = detect::kDefaultResolveAfterNs;
  std::string detect_config_path;

  std::vector<std::string> alertmanager_urls;
  std::vector<std::string> webhook_urls;
  std::string webhook_token;
  int64_t alert_resend_ns = 60'000'000'000;

  bool capture_enabled = false;
  std::string capture_output_dir = "/var/tmp/gpufleet-captures";
  int64_t capture_duration_ns = 30'000'000'000;
  // [place]: POST /api/v1/place answers against this inventory file ("" = off).
  std::string place_inventory;
  std::string place_policy = "gpufleet";
  // Gavel's simulation_throughputs.json: requests with an `objective` ("" = those answer 400).
  std::string place_throughputs;
  // [cost]: meter every write into the cost ledger (GET /api/v1/cost);
  // prices: site prices file (docs/cost.md), "" = the public catalog only;
  // "embedded:NAME" reads data/NAME (the demo's prices).
  bool cost_enabled = true;
  std::string cost_prices;
};

// Reads `toml` on top of `base`: keys present replace base values.
StatusOr<ServerConfig> ParseServerConfig(std::string_view toml, std::string_view origin,
                                         const ServerConfig& base);
// The embedded data/server/default.toml.
StatusOr<ServerConfig> DefaultServerConfig();
// Defaults, then the file at `path` when not empty.
StatusOr<ServerConfig> LoadServerConfig(const std::string& path);

// Who may do what on `config`'s API: `token` and the lines of `token_file`
// are admin tokens; `read_tokens` and the lines of `read_token_file` read
// tokens (a file: one token a line, blank lines and lines starting with #
// skipped, surrounding spaces trimmed); beyond loopback unless `listen` is
// a loopback address. Checked with CheckAccessPolicy against whether [tls]
// is set. Errors name the file and line, [tls] or `listen`; never a token.
StatusOr<AccessPolicy> AccessPolicyFromConfig(const ServerConfig& config);

}  // namespace gpufleet
