#include "server/server_config.h"

#include "core/embedded.h"
#include "core/file_util.h"
#include "detect/detect_config.h"
#include "core/toml_reader.h"

namespace gpufleet {
namespace {

// Reads the keys of one table into a config, each only when present.
class Reader {
 public:
  Reader(const toml::table& t, std::string_view origin, std::string prefix)
      : t_(t), origin_(origin), prefix_(std::move(prefix)) {}

  Status String(std::string_view key, std::string& out) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return OkStatus();
    if (!n->is_string()) return Error(*n, key, "a string");
    out = n->as_string()->get();
    return OkStatus();
  }
  Status Int(std::string_view key, int64_t& out) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return OkStatus();
    if (!n->is_integer() || n->as_integer()->get() < 0) return Error(*n, key, "an integer >= 0");
    out = n->as_integer()->get();
    return OkStatus();
  }
  Status Number(std::string_view key, double& out) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return OkStatus();
    if (n->is_integer()) {
      out = static_cast<double>(n->as_integer()->get());
    } else if (n->is_floating_point()) {
      out = n->as_floating_point()->get();
    } else {
      return Error(*n, key, "a number");
    }
    return OkStatus();
  }
  Status Bool(std::string_view key, bool& out) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return OkStatus();
    if (!n->is_boolean()) return Error(*n, key, "true or false");
    out = n->as_boolean()->get();
    return OkStatus();
  }
  Status Duration(std::string_view key, int64_t& out) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return OkStatus();
    if (!n->is_string()) return Error(*n, key, "a duration such as \"30s\"");
    StatusOr<int64_t> d = detect::ParseDurationNs(n->as_string()->get());
    if (!d.ok() || *d <= 0) return Error(*n, key, "a positive duration such as \"30s\"");
    out = *d;
    return OkStatus();
  }
  Status Strings(std::string_view key, std::vector<std::string>& out) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return OkStatus();
    if (!n->is_array()) return Error(*n, key, "an array of strings");
    std::vector<std::string> v;
    for (const toml::node& e : *n->as_array()) {
      if (!e.is_string()) return Error(e, key, "an array of strings");
      v.push_back(e.as_string()->get());
    }
    out = std::move(v);
    return OkStatus();
  }

 private:
  Status Error(const toml::node& n, std::string_view key, std::string_view want) const {
    return InvalidArgumentError(TomlWhere(origin_, n) + prefix_ + std::string(key) + ": want " +
                                std::string(want));
  }
  const toml::table& t_;
  std::string_view origin_;
  std::string prefix_;
};

const toml::table* Section(const toml::table& t, std::string_view name) {
  const toml::node* n = t.get(name);
  return n != nullptr ? n->as_table() : nullptr;
}

}  // namespace

StatusOr<ServerConfig> ParseServerConfig(std::string_view text, std::string_view origin,
                                         const ServerConfig& base) {
  ASSIGN_OR_RETURN(toml::table t, ParseToml(text, origin));
  ServerConfig c = base;
  static const char* const kKnown[] = {"listen", "db",     "external_url", "token",
                                       "window", "limits", "forward",      "scrape",
                                       "detect", "alerts", "capture",      "place"};
  for (const auto& [key, node] : t) {
    bool known = false;
    for (const char* k : kKnown) known |= key.str() == k;
    if (!known) {
      return InvalidArgumentError(TomlWhere(origin, node) + "unknown key '" +
                                  std::string(key.str()) + "'");
    }
  }
  Reader top(t, origin, "");
  RETURN_IF_ERROR(top.String("listen", c.listen));
  RETURN_IF_ERROR(top.String("db", c.db_path));
  RETURN_IF_ERROR(top.String("external_url", c.external_url));
  RETURN_IF_ERROR(top.String("token", c.token));
  if (const toml::table* s = Section(t, "window")) {
    Reader r(*s, origin, "window.");
    RETURN_IF_ERROR(r.Duration("retention", c.window_retention_ns));
    RETURN_IF_ERROR(r.Int("max_series", c.window_max_series));
  }
  if (const toml::table* s = Section(t, "limits")) {
    Reader r(*s, origin, "limits.");
    RETURN_IF_ERROR(r.Int("max_body_bytes", c.max_body_bytes));
    RETURN_IF_ERROR(r.Number("requests_per_second", c.requests_per_second));
    RETURN_IF_ERROR(r.Number("burst", c.burst));
  }
  if (const toml::table* s = Section(t, "forward")) {
    Reader r(*s, origin, "forward.");
    RETURN_IF_ERROR(r.String("url", c.forward_url));
    RETURN_IF_ERROR(r.String("token", c.forward_token));
    RETURN_IF_ERROR(r.String("queue_dir", c.forward_queue_dir));
    RETURN_IF_ERROR(r.Int("queue_max_bytes", c.forward_queue_max_bytes));
  }
  if (const toml::table* s = Section(t, "scrape")) {
    Reader r(*s, origin, "scrape.");
    RETURN_IF_ERROR(r.Strings("targets", c.scrape_targets));
    RETURN_IF_ERROR(r.Duration("interval", c.scrape_interval_ns));
  }
  if (const toml::table* s = Section(t, "detect")) {
    Reader r(*s, origin, "detect.");
    RETURN_IF_ERROR(r.Duration("interval", c.detect_interval_ns));
    RETURN_IF_ERROR(r.Duration("resolve_after", c.resolve_after_ns));
    RETURN_IF_ERROR(r.String("config", c.detect_config_path));
  }
  if (const toml::table* s = Section(t, "alerts")) {
    Reader r(*s, origin, "alerts.");
    RETURN_IF_ERROR(r.Strings("alertmanager", c.alertmanager_urls));
    RETURN_IF_ERROR(r.Strings("webhooks", c.webhook_urls));
    RETURN_IF_ERROR(r.String("webhook_token", c.webhook_token));
    RETURN_IF_ERROR(r.Duration("resend", c.alert_resend_ns));
  }
  if (const toml::table* s = Section(t, "capture")) {
    Reader r(*s, origin, "capture.");
    RETURN_IF_ERROR(r.Bool("enabled", c.capture_enabled));
    RETURN_IF_ERROR(r.String("output_dir", c.capture_output_dir));
    RETURN_IF_ERROR(r.Duration("duration", c.capture_duration_ns));
  }
  if (const toml::table* s = Section(t, "place")) {
    Reader r(*s, origin, "place.");
    RETURN_IF_ERROR(r.String("inventory", c.place_inventory));
    RETURN_IF_ERROR(r.String("policy", c.place_policy));
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

}  // namespace gpufleet
