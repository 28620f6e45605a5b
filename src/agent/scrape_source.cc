#include "agent/scrape_source.h"

#include "core/file_util.h"
#include "net/http_client.h"
#include "net/url.h"
#include "normalize/exposition_translator.h"

namespace gpufleet {

StatusOr<ExtraSource> NewScrapeSource(const std::string& target, const NodeIdentity& node,
                                      int64_t timeout_ns) {
  bool is_url = target.find("://") != std::string::npos;
  std::string url;  // an exporter URL without a path means its /metrics
  if (is_url) {
    ASSIGN_OR_RETURN(HttpUrl parsed, ParseHttpUrl(target, "/metrics"));
    url = parsed.Full();
  }
  ExtraSource src;
  src.name = "scrape:" + target;
  src.collect = [target, url, node, timeout_ns, is_url](std::vector<Sample>& out,
                                                         std::map<std::string, uint64_t>& errors) {
    // A fresh client per fetch: a fetch stuck past its deadline must not hold the next one.
    StatusOr<std::string> body = is_url ? HttpGet(url, timeout_ns) : ReadFileToString(target);
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
