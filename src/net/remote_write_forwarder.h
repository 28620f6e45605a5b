// RemoteWriteForwarder: sends remote-write bodies to a receiver (gpufleet server,
// VictoriaMetrics, Prometheus, Mimir) through a bounded on-disk queue, so an outage of the
// receiver loses nothing up to the queue's bound.
//
// Delivery follows the remote write 1.0 spec: POST with `Content-Encoding: snappy`,
// `Content-Type: application/x-protobuf` and `X-Prometheus-Remote-Write-Version: 0.1.0`;
// 2xx acknowledges a batch; 5xx, 429 and connection errors are retried with exponential
// backoff (min_backoff_ms doubling up to max_backoff_ms, with jitter in [delay/2, delay]),
// honouring a `Retry-After` header given in seconds on 429/503; any other status (4xx) means
// the receiver will never accept the batch, so it is dropped and counted. Batches are sent
// one at a time in queue order (series order per the spec is kept trivially).
//
// Thread safety: Enqueue and stats may be called from any thread; the forwarder drains the
// queue on its own thread between Start and Stop.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/status.h"
#include "net/disk_queue.h"
#include "net/http_client.h"

namespace gpufleet {

struct ForwarderOptions {
  std::string url;           // e.g. http://127.0.0.1:8428/api/v1/write (http or https)
  std::string bearer_token;  // sent as "Authorization: Bearer <token>" when not empty
  std::string ca_file;       // https: trust this PEM CA file; "" = the system's CAs
  std::string queue_dir;
  uint64_t queue_max_bytes = 512ull << 20;
  int64_t min_backoff_ms = 30, max_backoff_ms = 5000;
  int64_t timeout_ms = 10000;  // connect, read and write timeout of one request
  // Tests and benchmarks may trade durability for speed; production keeps kEveryPush.
  DiskQueueOptions::Sync queue_sync = DiskQueueOptions::Sync::kEveryPush;
  // The client batches go through; null = a real keep-alive client. Tests pass a
  // FakeHttpClient. Must outlive the forwarder.
  HttpClient* client = nullptr;
};

struct ForwarderStats {
  uint64_t sent_batches = 0;
  uint64_t sent_samples = 0;
  uint64_t retries = 0;                  // failed attempts that will be retried
  uint64_t dropped_rejected_batches = 0;  // receiver answered a non-retryable 4xx
  uint64_t dropped_rejected_samples = 0;
  uint64_t dropped_queue_full_batches = 0;  // oldest batches dropped or too large to queue
  uint64_t queue_batches = 0;
  uint64_t queue_bytes = 0;
  int64_t last_retry_delay_ms = 0;  // delay chosen before the most recent retry
  int last_http_status = 0;         // 0 when the last attempt got no HTTP answer
};

class RemoteWriteForwarder {
 public:
  // Opens the queue (resuming what a previous run left) and starts the sending thread.
  // InvalidArgument for a URL that is not http(s)://host[:port]/path.
  static StatusOr<std::unique_ptr<RemoteWriteForwarder>> Start(const ForwarderOptions& options);
  ~RemoteWriteForwarder();  // calls Stop()

  // Enqueues one already-encoded remote-write body carrying `samples` samples. Durable once
  // this returns OK (with the default queue_sync). May drop the oldest queued batches.
  Status Enqueue(std::string_view encoded_body, uint64_t samples);

  ForwarderStats stats() const;

  // Stops the sending thread (aborting an in-flight request); pending batches stay on disk for
  // the next Start. Idempotent.
  void Stop();

 private:
  RemoteWriteForwarder(const ForwarderOptions& options, std::unique_ptr<DiskQueue> queue);
  void Run();
  // Sleeps up to `ms` or until Stop; returns false when stopping.
  bool SleepUnlessStopped(int64_t ms);

  // Set at construction.
  const ForwarderOptions options_;
  const std::unique_ptr<DiskQueue> queue_;
  std::unique_ptr<HttpClient> own_client_;  // when options_.client is null
  HttpClient* const client_;                // Stop() cancels its request from another thread

  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  ForwarderStats stats_;
  std::thread thread_;
};

}  // namespace gpufleet
