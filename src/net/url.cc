#include "net/url.h"

#include <cctype>
#include <optional>
#include <vector>

#include "core/strings.h"

namespace gpufleet {

StatusOr<HttpUrl> ParseHttpUrl(std::string_view url, std::string_view default_path) {
  size_t scheme_end = url.find("://");
  std::string_view scheme =
      scheme_end == std::string_view::npos ? std::string_view() : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return InvalidArgumentError("URL '" + std::string(url) +
                                "': want http(s)://host[:port][/path]");
  }
  size_t host_start = scheme_end + 3;
  size_t slash = url.find('/', host_start);
  HttpUrl out;
  out.host = std::string(url.substr(host_start, slash == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : slash - host_start));
  if (out.host.empty()) return InvalidArgumentError("URL '" + std::string(url) + "': no host");
  out.base = std::string(url.substr(0, slash));
  out.path = slash == std::string_view::npos ? std::string(default_path)
                                             : std::string(url.substr(slash));
  return out;
}

StatusOr<ListenAddress> ParseListenAddress(std::string_view value, std::string_view flag) {
  ListenAddress out;
  size_t colon = value.rfind(':');
  std::string_view port_str = value;
  out.host = "127.0.0.1";
  if (colon != std::string_view::npos) {
    std::string_view h = value.substr(0, colon);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
    out.host = h.empty() ? "0.0.0.0" : std::string(h);
    port_str = value.substr(colon + 1);
  }
  std::optional<int64_t> p = ParseInt64(port_str);
  if (!p || *p < 0 || *p > 65535) {
    return InvalidArgumentError(std::string(flag) + ": bad port in '" + std::string(value) +
                                "' (want host:port, :port or port; port 0-65535)");
  }
  out.port = static_cast<int>(*p);
  return out;
}

std::string PercentEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size() * 3);
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (EqualsIgnoreCase(host, "localhost") || host == "::1") return true;
  // 127.a.b.c: exactly four decimal parts of at most three digits, each <= 255.
  std::vector<std::string_view> parts = SplitString(host, '.');
  if (parts.size() != 4 || parts[0] != "127") return false;
  for (std::string_view part : parts) {
    std::optional<int64_t> n = part.size() <= 3 ? ParseInt64(part) : std::nullopt;
    if (!n.has_value() || *n < 0 || *n > 255 || part.front() == '-' || part.front() == '+') {
      return false;
    }
  }
  return true;
}

}  // namespace gpufleet
