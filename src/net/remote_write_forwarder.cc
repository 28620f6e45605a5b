#include "net/remote_write_forwarder.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <random>

#include "net/url.h"

namespace gpufleet {
namespace {

constexpr size_t kSamplesPrefixBytes = 8;
// Longest Retry-After we obey: a receiver asking for more is treated as asking for this.
constexpr int64_t kMaxRetryAfterMs = 5 * 60 * 1000;

// Retry-After in delay-seconds form; the HTTP-date form is rare for these receivers and falls
// back to the exponential backoff.
std::optional<int64_t> RetryAfterMs(const StatusOr<HttpResponse>& result) {
  if (!result.ok()) return std::nullopt;
  std::string value = result->Header("Retry-After");
  if (value.empty()) return std::nullopt;
  int64_t seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return std::nullopt;
  return std::min(seconds, kMaxRetryAfterMs / 1000) * 1000;
}

}  // namespace

StatusOr<std::unique_ptr<RemoteWriteForwarder>> RemoteWriteForwarder::Start(
    const ForwarderOptions& options) {
  RETURN_IF_ERROR(ParseHttpUrl(options.url).status().WithContext("remote write"));
  if (options.min_backoff_ms <= 0 || options.max_backoff_ms < options.min_backoff_ms) {
    return InvalidArgumentError("remote write: need 0 < min_backoff_ms <= max_backoff_ms");
  }
  DiskQueueOptions queue_options;
  queue_options.dir = options.queue_dir;
  queue_options.max_bytes = options.queue_max_bytes;
  queue_options.segment_bytes = std::clamp<uint64_t>(options.queue_max_bytes / 8, 1 << 20, 64 << 20);
  queue_options.sync = options.queue_sync;
  auto queue = DiskQueue::Open(queue_options);
  if (!queue.ok()) return queue.status().WithContext("remote write queue");
  std::unique_ptr<RemoteWriteForwarder> forwarder(
      new RemoteWriteForwarder(options, std::move(queue).value()));
  forwarder->thread_ = std::thread([f = forwarder.get()] { f->Run(); });
  return forwarder;
}

RemoteWriteForwarder::RemoteWriteForwarder(const ForwarderOptions& options,
                                           std::unique_ptr<DiskQueue> queue)
    : options_(options),
      queue_(std::move(queue)),
      own_client_(options.client == nullptr
                      ? NewHttpClient({.keep_alive = true, .ca_file = options.ca_file})
                      : nullptr),
      client_(options.client != nullptr ? options.client : own_client_.get()) {}

RemoteWriteForwarder::~RemoteWriteForwarder() { Stop(); }

void RemoteWriteForwarder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  client_->Cancel();
  queue_->Interrupt();
  if (thread_.joinable()) thread_.join();
}

Status RemoteWriteForwarder::Enqueue(std::string_view encoded_body, uint64_t samples) {
  std::string record(kSamplesPrefixBytes + encoded_body.size(), '\0');
  std::memcpy(record.data(), &samples, kSamplesPrefixBytes);
  std::memcpy(record.data() + kSamplesPrefixBytes, encoded_body.data(), encoded_body.size());
  return queue_->Push(record);
}

ForwarderStats RemoteWriteForwarder::stats() const {
  DiskQueueStats queue = queue_->stats();
  std::lock_guard<std::mutex> lock(mu_);
  ForwarderStats out = stats_;
  out.dropped_queue_full_batches = queue.dropped_records + queue.rejected_records;
  out.queue_batches = queue.records;
  out.queue_bytes = queue.bytes;
  return out;
}

bool RemoteWriteForwarder::SleepUnlessStopped(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping_.load(); });
  return !stopping_;
}

void RemoteWriteForwarder::Run() {
  HttpRequest request;
  request.method = "POST";
  request.url = options_.url;
  request.content_type = "application/x-protobuf";
  request.timeout_ns = options_.timeout_ms * kNsPerMs;
  request.headers = {
      {"Content-Encoding", "snappy"},
      {"User-Agent", "gpufleet/0.1.0"},
      {"X-Prometheus-Remote-Write-Version", "0.1.0"},
  };
  if (!options_.bearer_token.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + options_.bearer_token);
  }
  std::mt19937_64 rng(std::random_device{}());
  int64_t backoff_ms = options_.min_backoff_ms;

  while (!stopping_) {
    if (!queue_->WaitForRecord(std::chrono::milliseconds(500))) continue;
    auto record = queue_->Peek();
    if (!record.ok() || !record->has_value()) {
      // An I/O error reading the queue: wait and try again rather than spin.
      if (!SleepUnlessStopped(backoff_ms)) break;
      continue;
    }
    const QueuedRecord& batch = **record;
    uint64_t samples = 0;
    std::string_view body;
    if (batch.payload.size() >= kSamplesPrefixBytes) {
      std::memcpy(&samples, batch.payload.data(), kSamplesPrefixBytes);
      body = std::string_view(batch.payload).substr(kSamplesPrefixBytes);
    }
    request.body = body;
    StatusOr<HttpResponse> result = client_->Send(request);
    const int status = result.ok() ? result->status : 0;
    const bool retry = !result.ok() || status == 429 || status >= 500;
    if (!retry) {
      queue_->Pop(batch.id).IgnoreError();
      std::lock_guard<std::mutex> lock(mu_);
      stats_.last_http_status = status;
      if (status >= 200 && status < 300) {
        ++stats_.sent_batches;
        stats_.sent_samples += samples;
      } else {
        ++stats_.dropped_rejected_batches;
        stats_.dropped_rejected_samples += samples;
      }
      backoff_ms = options_.min_backoff_ms;
      continue;
    }
    if (stopping_) break;  // the request failed because Stop() aborted it: not a retry
    int64_t delay_ms;
    if (auto retry_after = RetryAfterMs(result); retry_after && (status == 429 || status == 503)) {
      delay_ms = std::max(*retry_after, options_.min_backoff_ms);
    } else {
      delay_ms = std::uniform_int_distribution<int64_t>(backoff_ms / 2, backoff_ms)(rng);
      delay_ms = std::max(delay_ms, options_.min_backoff_ms);
      backoff_ms = std::min(backoff_ms * 2, options_.max_backoff_ms);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.retries;
      stats_.last_retry_delay_ms = delay_ms;
      stats_.last_http_status = status;
    }
    if (!SleepUnlessStopped(delay_ms)) break;
  }
}

}  // namespace gpufleet
