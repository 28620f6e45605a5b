#include "server/server_config.h"

#include <algorithm>
#include <optional>

#include "core/embedded.h"
#include "core/file_util.h"
#include "core/strings.h"
#include "core/toml_reader.h"
#include "net/url.h"

namespace gpufleet {
namespace {

// [section] as a reader; nullopt when absent. A section written as a plain
// value (`window = 5`) has always been ignored, and still is.
std::optional<TomlReader> Section(const toml::table& t, std::string_view origin,
                                  std::string_view name) {
  const toml::table* s = t[name].as_table();
  if (s == nullptr) return std::nullopt;
  return TomlReader(*s, origin, std::string(name));
}

// Appends the tokens of `path` (one a line) to `out`.
Status ReadTokenFile(const std::string& path, std::string_view key, std::vector<std::string>& out) {
  StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status().WithContext(key);
  size_t line_no = 0;
  size_t before = out.size();
  for (std::string_view line : SplitString(*text, '\n')) {
    ++line_no;
    std::string_view t = TrimWhitespace(line);
    if (t.empty() || t.front() == '#') continue;
    if (std::any_of(t.begin(), t.end(), [](char c) { return c <= ' ' || c >= 0x7f; })) {
      return InvalidArgumentError(std::string(key) + " " + path + ":" + std::to_string(line_no) +
                                  ": a token has spaces or non-printable characters");
    }
    out.emplace_back(t);
  }
  if (out.size() == before) {
    return InvalidArgumentError(std::string(key) + " " + path + ": no token in it");
  }
  return OkStatus();
}

}  // namespace

StatusOr<ServerConfig> ParseServerConfig(std::string_view text, std::string_view origin,
                                         const ServerConfig& base) {
  ASSIGN_OR_RETURN(toml::table t, ParseToml(text, origin));
  ServerConfig c = base;
  TomlReader top(t, origin);
  RETURN_IF_ERROR(
      top.CheckKeys({"listen", "db", "external_url", "token", "token_file", "read_tokens",
                     "read_token_file", "tls", "window", "limits", "forward", "scrape", "detect",
                     "alerts", "capture", "place", "cost", "longterm"}));
  RETURN_IF_ERROR(top.Read("listen", c.listen));
  RETURN_IF_ERROR(top.Read("db", c.db_path));
  RETURN_IF_ERROR(top.Read("external_url", c.external_url));
  RETURN_IF_ERROR(top.Read("token", c.token));
  RETURN_IF_ERROR(top.Read("token_file", c.token_file));
  RETURN_IF_ERROR(top.Read("read_tokens", c.read_tokens));
  RETURN_IF_ERROR(top.Read("read_token_file", c.read_token_file));
  if (auto r = Section(t, origin, "tls")) {
    RETURN_IF_ERROR(r->CheckKeys({"cert_file", "key_file"}));
    RETURN_IF_ERROR(r->Read("cert_file", c.tls_cert_file));
    RETURN_IF_ERROR(r->Read("key_file", c.tls_key_file));
  }
  constexpr int64_t kPositive = 1;  // ns: durations must be > 0
  if (auto r = Section(t, origin, "window")) {
    RETURN_IF_ERROR(r->ReadDuration("retention", c.window_retention_ns, kPositive));
    RETURN_IF_ERROR(r->Read("max_series", c.window_max_series, 0));
    RETURN_IF_ERROR(r->ReadDuration("stale_after", c.window_stale_after_ns, kPositive));
  }
  if (auto r = Section(t, origin, "limits")) {
    RETURN_IF_ERROR(r->Read("max_body_bytes", c.max_body_bytes, 0));
    RETURN_IF_ERROR(r->Read("requests_per_second", c.requests_per_second));
    RETURN_IF_ERROR(r->Read("burst", c.burst));
  }
  if (auto r = Section(t, origin, "forward")) {
    RETURN_IF_ERROR(r->Read("url", c.forward_url));
    RETURN_IF_ERROR(r->Read("token", c.forward_token));
    RETURN_IF_ERROR(r->Read("queue_dir", c.forward_queue_dir));
    RETURN_IF_ERROR(r->Read("queue_max_bytes", c.forward_queue_max_bytes, 0));
  }
  if (auto r = Section(t, origin, "longterm")) {
    RETURN_IF_ERROR(r->Read("query_url", c.longterm_query_url));
    RETURN_IF_ERROR(r->Read("token", c.longterm_token));
    RETURN_IF_ERROR(r->ReadDuration("timeout", c.longterm_timeout_ns, kPositive));
  }
  if (auto r = Section(t, origin, "scrape")) {
    RETURN_IF_ERROR(r->Read("targets", c.scrape_targets));
    RETURN_IF_ERROR(r->ReadDuration("interval", c.scrape_interval_ns, kPositive));
  }
  if (auto r = Section(t, origin, "detect")) {
    RETURN_IF_ERROR(r->ReadDuration("interval", c.detect_interval_ns, kPositive));
    RETURN_IF_ERROR(r->ReadDuration("resolve_after", c.resolve_after_ns, kPositive));
    RETURN_IF_ERROR(r->Read("config", c.detect_config_path));
  }
  if (auto r = Section(t, origin, "alerts")) {
    RETURN_IF_ERROR(r->Read("alertmanager", c.alertmanager_urls));
    RETURN_IF_ERROR(r->Read("webhooks", c.webhook_urls));
    RETURN_IF_ERROR(r->Read("webhook_token", c.webhook_token));
    RETURN_IF_ERROR(r->ReadDuration("resend", c.alert_resend_ns, kPositive));
  }
  if (auto r = Section(t, origin, "capture")) {
    RETURN_IF_ERROR(r->Read("enabled", c.capture_enabled));
    RETURN_IF_ERROR(r->Read("output_dir", c.capture_output_dir));
    RETURN_IF_ERROR(r->ReadDuration("duration", c.capture_duration_ns, kPositive));
  }
  if (auto r = Section(t, origin, "place")) {
    RETURN_IF_ERROR(r->Read("inventory", c.place_inventory));
    RETURN_IF_ERROR(r->Read("policy", c.place_policy));
    RETURN_IF_ERROR(r->Read("throughputs", c.place_throughputs));
  }
  if (auto r = Section(t, origin, "cost")) {
    RETURN_IF_ERROR(r->Read("enabled", c.cost_enabled));
    RETURN_IF_ERROR(r->Read("prices", c.cost_prices));
  }
  return c;
}

StatusOr<ServerConfig> DefaultServerConfig() {
  std::optional<std::string_view> text = FindEmbeddedFile("server/default.toml");
  if (!text.has_value()) return InternalError("embedded server/default.toml is missing");
  return ParseServerConfig(*text, "server/default.toml", ServerConfig());
}

StatusOr<ServerConfig> LoadServerConfig(const std::string& path) {
  ASSIGN_OR_RETURN(ServerConfig c, DefaultServerConfig());
  if (path.empty()) return c;
  ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseServerConfig(text, path, c);
}

StatusOr<AccessPolicy> AccessPolicyFromConfig(const ServerConfig& c) {
  AccessPolicy p;
  ASSIGN_OR_RETURN(ListenAddress listen, ParseListenAddress(c.listen, "listen"));
  p.beyond_loopback = !IsLoopbackHost(listen.host);
  if (!c.token.empty()) p.admin_tokens.push_back(c.token);
  if (!c.token_file.empty())
    RETURN_IF_ERROR(ReadTokenFile(c.token_file, "token_file", p.admin_tokens));
  for (const std::string& t : c.read_tokens) p.read_tokens.push_back(t);
  if (!c.read_token_file.empty()) {
    RETURN_IF_ERROR(ReadTokenFile(c.read_token_file, "read_token_file", p.read_tokens));
  }
  if (c.tls_cert_file.empty() != c.tls_key_file.empty()) {
    return InvalidArgumentError("[tls]: set both cert_file and key_file, or neither");
  }
  const bool tls = !c.tls_cert_file.empty();
  Status st = CheckAccessPolicy(p, tls);
  if (!st.ok()) return p.beyond_loopback ? st.WithContext("listen " + c.listen) : st;
  return p;
}

}  // namespace gpufleet
