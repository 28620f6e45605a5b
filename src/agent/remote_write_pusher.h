// RemoteWritePusher: sends every snapshot the agent publishes to a remote-write receiver
// (gpufleet server, VictoriaMetrics, Prometheus) through a RemoteWriteForwarder, whose disk
// queue carries the data over receiver outages.
//
// Thread safety: PushNew and Run run on one thread; Stop and pushed_snapshots from any.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "agent/agent.h"
#include "core/status.h"
#include "net/remote_write_forwarder.h"

namespace gpufleet {

class RemoteWritePusher {
 public:
  using SnapshotSource = std::function<std::shared_ptr<const Snapshot>()>;
  // Series per remote-write body: keeps one request well under receivers' size limits.
  static constexpr size_t kMaxSeriesPerBatch = 2000;

  // `forwarder` must outlive the pusher.
  RemoteWritePusher(SnapshotSource source, RemoteWriteForwarder& forwarder)
      : source_(std::move(source)), forwarder_(forwarder) {}

  // Enqueues the current snapshot when it is newer than the last one pushed. Returns whether
  // it pushed; an Enqueue error (e.g. disk full) is returned and the snapshot is retried on
  // the next call.
  StatusOr<bool> PushNew();
  // Calls PushNew every `poll_ns` until Stop(); errors are logged to stderr once per kind.
  void Run(int64_t poll_ns);
  void Stop();

  uint64_t pushed_snapshots() const { return pushed_.load(); }

 private:
  const SnapshotSource source_;
  RemoteWriteForwarder& forwarder_;
  int64_t last_pushed_ns_ = 0;  // used by the pushing thread only
  std::atomic<uint64_t> pushed_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
};

}  // namespace gpufleet
