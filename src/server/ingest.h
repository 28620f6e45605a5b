// Ingester: the one ingest path of the server. Remote-write bodies (from
// agents, Prometheus or the in-process simulator) and scraped samples go
// through it into the window store; gpu_info series update the inventory;
// accepted data is queued for forwarding to long-term storage.
//
// A batch is never all-or-nothing: invalid series are dropped and counted,
// every valid series of the same batch is stored and forwarded.
//
// Thread safety: thread-safe (HTTP handler threads and loops call it).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/sample.h"
#include "core/status.h"
#include "cost/meter.h"
#include "cost/price_book.h"
#include "cost/work_meter.h"
#include "expo/remote_write.h"
#include "net/remote_write_forwarder.h"
#include "place/inventory_store.h"
#include "store/window_store.h"

namespace gpufleet {

struct IngestResult {
  uint64_t samples_accepted = 0;
  uint64_t samples_rejected = 0;
  // OK when everything was accepted; InvalidArgument naming the problem
  // (byte offset, series index and reason) otherwise.
  Status status;
};

struct IngestCounters {
  uint64_t requests = 0;
  uint64_t requests_rejected = 0;  // undecodable bodies
  uint64_t samples_accepted = 0;
  uint64_t samples_rejected = 0;  // invalid series, out of order or over the series limit
  uint64_t inventory_errors = 0;
  uint64_t forward_enqueue_errors = 0;
  uint64_t meter_errors = 0;  // writes answered 503 because the cost meter could not commit
};

class Ingester {
 public:
  // `inventory`, `forwarder`, `meter` and `prices` may be null. All must
  // outlive the ingester. With a meter, a write is metered (committed) before
  // it is acknowledged; when metering fails the result is Unavailable, so the
  // sender retries (the meter ignores what it already counted). With a
  // meter, prices and a forwarder, the first write of every minute (by its
  // samples' time) also forwards the metered devices' prices
  // (cost::DevicePriceSeries), so recording rules can price usage in the
  // long-term store.
  Ingester(WindowStore& window, InventoryStore* inventory, RemoteWriteForwarder* forwarder,
           const Clock& clock, RemoteWriteLimits limits = {}, cost::Meter* meter = nullptr,
           const cost::PriceBook* prices = nullptr, cost::WorkMeter* work_meter = nullptr);

  IngestResult IngestRemoteWrite(std::string_view body);
  // Samples with timestamp_ns 0 get the clock's time.
  IngestResult IngestSamples(const std::vector<Sample>& samples);

  IngestCounters counters() const;

 private:
  // Appends to the window store; with a meter, also fills `meter_keys`
  // (cost::MeterKeyOf of each series, while its labels are in the cache).
  uint64_t Store(const RemoteWriteRequest& request, uint64_t* rejected,
                 std::vector<cost::MeterKey>* meter_keys);
  // `keyed`: metered series the window store held, passed to the meter
  // without their labels (cost::KeyedSamples).
  Status MeterWrite(const std::vector<RemoteWriteSeries>& series,
                    const std::vector<cost::MeterKey>& keys,
                    std::span<const cost::KeyedSamples> keyed = {});
  // `newest_ms`: the newest sample time of the write.
  void MaybeForwardPrices(int64_t newest_ms);
  // The valid series of `body` (decoded into `request` and `stats`, some
  // of them held: taken by the window store directly), encoded again.
  std::string EncodeValid(std::string_view body, const RemoteWriteRequest& request,
                          const RemoteWriteDecodeStats& stats) const;
  void MaybeRecordInventory(const Labels& labels, int64_t ts_ns);

  WindowStore& window_;
  InventoryStore* const inventory_;
  RemoteWriteForwarder* const forwarder_;
  cost::Meter* const meter_;
  cost::WorkMeter* const work_meter_;  // steps and tokens, metered with the write
  const cost::PriceBook* const prices_;
  std::mutex price_mu_;
  int64_t price_minute_ = -1;  // the last minute whose prices were forwarded; guarded by price_mu_
  const Clock& clock_;
  const RemoteWriteLimits limits_;

  std::atomic<uint64_t> requests_{0}, requests_rejected_{0}, samples_accepted_{0},
      samples_rejected_{0}, inventory_errors_{0}, forward_errors_{0}, meter_errors_{0};
  std::mutex inventory_mu_;
  // Series key -> wall time of its last inventory write; guarded by inventory_mu_.
  std::unordered_map<std::string, int64_t> inventory_written_;
};

}  // namespace gpufleet
