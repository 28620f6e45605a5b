#include "agent/scrape_source.h"

#include <httplib.h>

#include "core/file_util.h"
#include "core/strings.h"
#include "normalize/exposition_translator.h"

namespace gpufleet {

namespace {

struct Url {
  std::string scheme_host_port;  // "http://host:port"
  std::string path;
};

StatusOr<Url> SplitUrl(const std::string& url) {
  if (!StartsWith(url, "http://")) {
    return InvalidArgumentError("'" + url + "': only http:// URLs are supported");
  }
  size_t slash = url.find('/', 7);
  Url u;
  u.scheme_host_port = url.substr(0, slash);
  u.path = slash == std::string::npos ? "/metrics" : url.substr(slash);
  if (u.scheme_host_port.size() <= 7) return InvalidArgumentError("'" + url + "': no host");
  return u;
}

}  // namespace

StatusOr<std::string> HttpGet(const std::string& url, int64_t timeout_ns) {
  ASSIGN_OR_RETURN(Url u, SplitUrl(url));
  httplib::Client client(u.scheme_host_port);
  time_t sec = static_cast<time_t>(timeout_ns / kNsPerSecond);
  time_t usec = static_cast<time_t>((timeout_ns % kNsPerSecond) / 1000);
  client.set_connection_timeout(sec, usec);
  client.set_read_timeout(sec, usec);
  client.set_write_timeout(sec, usec);
  auto res = client.Get(u.path);
  if (!res) {
    return UnavailableError(url + ": " + httplib::to_string(res.error()));
  }
  if (res->status != 200) {
    return UnavailableError(url + ": HTTP " + std::to_string(res->status));
  }
  return std::move(res->body);
}

StatusOr<ExtraSource> NewScrapeSource(const std::string& target, const NodeIdentity& node,
                                      int64_t timeout_ns) {
  bool is_url = target.find("://") != std::string::npos;
  if (is_url) RETURN_IF_ERROR(SplitUrl(target).status());
  ExtraSource src;
  src.name = "scrape:" + target;
  src.collect = [target, node, timeout_ns, is_url](std::vector<Sample>& out,
                                                    std::map<std::string, uint64_t>& errors) {
    StatusOr<std::string> body = is_url ? HttpGet(target, timeout_ns) : ReadFileToString(target);
    if (!body.ok()) return body.status();
    TranslateOptions opts;
    opts.node = node.node;
    TranslateReport report;
    RETURN_IF_ERROR(TranslateExpositionToSamples(*body, target, opts, RealClock::Get().NowNs(),
                                                 &out, &report));
    errors["parse_error"] += report.parse_errors;
    errors["sentinel"] += report.sentinels;
    errors["absurd"] += report.absurd;
    for (const auto& [name, n] : report.unmapped) errors["unmapped"] += n;
    return OkStatus();
  };
  return src;
}

}  // namespace gpufleet
