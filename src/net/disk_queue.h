// DiskQueue: a bounded, crash-safe FIFO of byte records kept in segment files.
//
// Layout: `<dir>/<20-digit segment id>.seg`, each a sequence of records
//   [u32 payload length, little-endian][u32 CRC-32 of length bytes + payload][payload]
// plus `<dir>/cursor` (segment id, offset, CRC) that remembers what the consumer has
// acknowledged. Producers append to the newest segment and start a new one past
// `segment_bytes`; a segment is deleted once every record in it is acknowledged or dropped.
//
// Durability: with Sync::kEveryPush (the default) a record is fdatasync'ed before Push
// returns, and new or deleted segment files are made durable by syncing the directory. The
// cursor is written on every Pop without fsync: after a crash, records acknowledged shortly
// before may be delivered again (at-least-once), never lost. On Open, a torn last record
// (a crash mid-append) is detected by its length or CRC, counted and cut off; a corrupt
// record elsewhere ends its segment (its length can no longer be trusted), and the rest of
// that segment is counted as corrupt. Neither is fatal.
//
// Bound: `max_bytes` bounds the unacknowledged bytes (headers included). A Push that would
// exceed it drops the OLDEST records and counts them: for telemetry the newest data is the
// most valuable (alerts and dashboards look at now), and that is also what the Prometheus
// WAL does when the receiver stays down too long. Disk use may exceed the bound by at most
// one segment of acknowledged records that has not been deleted yet.
//
// Thread safety: all methods may be called from any thread (typically one producer and one
// consumer); one mutex guards the state, and the consumer's Peek/Pop never see a record
// twice unless it was not popped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpufleet {

struct DiskQueueOptions {
  std::string dir;  // created when missing
  uint64_t max_bytes = 512ull << 20;
  uint64_t segment_bytes = 16ull << 20;
  enum class Sync { kEveryPush, kNone } sync = Sync::kEveryPush;
};

struct DiskQueueStats {
  uint64_t records = 0;          // queued, not yet acknowledged
  uint64_t bytes = 0;            // of those records, headers included
  uint64_t dropped_records = 0;  // oldest records dropped to stay under max_bytes
  uint64_t dropped_bytes = 0;
  uint64_t rejected_records = 0;  // single records larger than max_bytes
  uint64_t corrupt_records = 0;   // torn or corrupt records found by Open
};

struct QueuedRecord {
  uint64_t id = 0;  // pass to Pop
  std::string payload;
};

class DiskQueue {
 public:
  // Opens or creates the queue in options.dir, recovering what a previous process left.
  static StatusOr<std::unique_ptr<DiskQueue>> Open(const DiskQueueOptions& options);
  ~DiskQueue();
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Appends one record (durable on return with Sync::kEveryPush). May drop the oldest
  // records to make room. OutOfRange when the record alone exceeds max_bytes (counted in
  // rejected_records); Internal/DataLoss on I/O errors, with the queue left consistent.
  Status Push(std::string_view payload);

  // Returns a copy of the oldest record, or nullopt when empty. Does not remove it.
  StatusOr<std::optional<QueuedRecord>> Peek();

  // Acknowledges the record `id` returned by Peek: it is removed and never returned again.
  // A no-op when that record was already dropped to make room.
  Status Pop(uint64_t id);

  // Waits until a record is queued, Interrupt() is called or `timeout` passes. Returns
  // whether a record is available.
  bool WaitForRecord(std::chrono::milliseconds timeout);
  // Wakes every WaitForRecord caller (used to stop a consumer promptly).
  void Interrupt();

  DiskQueueStats stats() const;

 private:
  struct Entry {
    uint64_t id;
    uint64_t segment;
    uint64_t offset;
    uint32_t size;  // payload bytes
  };

  explicit DiskQueue(const DiskQueueOptions& options) : options_(options) {}
  Status Recover();
  Status ScanSegment(uint64_t segment, bool is_last, uint64_t cursor_segment,
                     uint64_t cursor_offset);
  Status OpenWriteSegment(uint64_t segment, uint64_t offset);
  // REQUIRES: mu_ held (or during Open). DropFront also REQUIRES !entries_.empty().
  void DropFront();
  // Persists the new head in the cursor and deletes segments before it.
  void AdvanceHead();
  std::string SegmentPath(uint64_t segment) const;

  const DiskQueueOptions options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  std::deque<Entry> entries_;
  std::set<uint64_t> segments_;  // segment files on disk
  uint64_t next_id_ = 1;
  uint64_t write_segment_ = 0;
  uint64_t write_offset_ = 0;
  int write_fd_ = -1;
  int cursor_fd_ = -1;
  int read_fd_ = -1;
  uint64_t read_fd_segment_ = 0;
  bool interrupted_ = false;
  DiskQueueStats stats_;
};

}  // namespace gpufleet
