// ScrapeLoop: pulls agents' /metrics (for agents that are scraped rather
// than remote-writing) at an interval and feeds the samples through the
// server's one ingest path. Each sample gets an `instance` label naming the
// target, as a Prometheus scrape would. Unparsable lines are skipped and
// counted; a target that does not answer is counted and retried next round.
//
// Thread safety: Start/Stop from one thread; counters() from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/sample.h"
#include "core/status.h"
#include "server/ingest.h"

namespace gpufleet {

// Parses exposition text into samples, adding `instance` unless present.
// `errors` counts skipped lines. Samples without a timestamp get `now_ns`.
std::vector<Sample> SamplesFromExposition(std::string_view text, std::string_view instance,
                                          int64_t now_ns, uint64_t* errors);

struct ScrapeCounters {
  uint64_t scrapes = 0;
  uint64_t failures = 0;
  uint64_t parse_errors = 0;
};

class ScrapeLoop {
 public:
  ScrapeLoop(std::vector<std::string> targets, int64_t period_real_ns, Ingester& ingester,
             const Clock& clock);
  ~ScrapeLoop();
  // InvalidArgument naming a target URL that is not http(s)://host[:port]/path.
  Status Start();
  void Stop();
  // One round over every target.
  void ScrapeOnce();
  ScrapeCounters counters() const;

 private:
  const std::vector<std::string> targets_;
  const int64_t period_real_ns_;
  Ingester& ingester_;
  const Clock& clock_;
  std::atomic<uint64_t> scrapes_{0}, failures_{0}, parse_errors_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace gpufleet
