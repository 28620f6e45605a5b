#include "server/scrape_loop.h"

#include <chrono>

#include "expo/exposition_parser.h"
#include "net/http_client.h"
#include "net/url.h"

namespace gpufleet {
namespace {

class Collect final : public ExpositionHandler {
 public:
  Collect(std::string_view instance, int64_t now_ns, std::vector<Sample>& out)
      : instance_(instance), now_ns_(now_ns), out_(out) {}
  void OnSample(const ExpoSample& s) override {
    Sample x;
    x.name = std::string(s.name);
    for (const ExpoLabel& l : s.labels) x.labels.Set(l.name, l.value);
    if (!x.labels.Has("instance")) x.labels.Set("instance", instance_);
    x.value = s.value;
    x.timestamp_ns = s.timestamp_ms.has_value() ? *s.timestamp_ms * kNsPerMs : now_ns_;
    out_.push_back(std::move(x));
  }

 private:
  std::string_view instance_;
  int64_t now_ns_;
  std::vector<Sample>& out_;
};

}  // namespace

std::vector<Sample> SamplesFromExposition(std::string_view text, std::string_view instance,
                                          int64_t now_ns, uint64_t* errors) {
  std::vector<Sample> out;
  Collect handler(instance, now_ns, out);
  ExpoParseStats stats = ParseExposition(text, handler);
  if (errors != nullptr) *errors += stats.errors;
  return out;
}

ScrapeLoop::ScrapeLoop(std::vector<std::string> targets, int64_t period_real_ns, Ingester& ingester,
                       const Clock& clock)
    : targets_(std::move(targets)),
      period_real_ns_(period_real_ns),
      ingester_(ingester),
      clock_(clock) {}

ScrapeLoop::~ScrapeLoop() { Stop(); }

Status ScrapeLoop::Start() {
  for (const std::string& t : targets_) {
    RETURN_IF_ERROR(ParseHttpUrl(t).status().WithContext("scrape target"));
  }
  if (targets_.empty() || thread_.joinable()) return OkStatus();
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      ScrapeOnce();
      lock.lock();
      cv_.wait_for(lock, std::chrono::nanoseconds(period_real_ns_), [this] { return stop_; });
    }
  });
  return OkStatus();
}

void ScrapeLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ScrapeLoop::ScrapeOnce() {
  std::unique_ptr<HttpClient> client = NewHttpClient();
  for (const std::string& t : targets_) {
    StatusOr<HttpUrl> url = ParseHttpUrl(t);
    if (!url.ok()) continue;
    scrapes_++;
    StatusOr<std::string> body = HttpGet(*client, url->Full(), period_real_ns_ * 8 / 10);
    if (!body.ok()) {
      failures_++;
      continue;
    }
    uint64_t errors = 0;
    std::vector<Sample> samples = SamplesFromExposition(*body, url->host, clock_.NowNs(), &errors);
    parse_errors_ += errors;
    ingester_.IngestSamples(samples);
  }
}

ScrapeCounters ScrapeLoop::counters() const {
  return {scrapes_.load(), failures_.load(), parse_errors_.load()};
}

}  // namespace gpufleet
