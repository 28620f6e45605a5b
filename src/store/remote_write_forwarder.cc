#include "store/remote_write_forwarder.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <random>

namespace gpufleet {
namespace {

constexpr size_t kSamplesPrefixBytes = 8;
// Longest Retry-After we obey: a receiver asking for more is treated as asking for this.
constexpr int64_t kMaxRetryAfterMs = 5 * 60 * 1000;

// Splits "http://host:port/api/v1/write" into "http://host:port" and "/api/v1/write".
Status SplitUrl(const std::string& url, std::string* base, std::string* path) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos ||
      (url.compare(0, scheme_end, "http") != 0 && url.compare(0, scheme_end, "https") != 0)) {
    return InvalidArgumentError("remote write url \"" + url + "\": expected http(s)://host/path");
  }
  size_t path_start = url.find('/', scheme_end + 3);
  *base = url.substr(0, path_start);
  *path = path_start == std::string::npos ? "/" : url.substr(path_start);
  if (base->size() == scheme_end + 3) {
    return InvalidArgumentError("remote write url \"" + url + "\": no host");
  }
  return OkStatus();
}

// Retry-After in delay-seconds form; the HTTP-date form is rare for these receivers and falls
// back to the exponential backoff.
std::optional<int64_t> RetryAfterMs(const httplib::Result& result) {
  if (!result || !result->has_header("Retry-After")) return std::nullopt;
  std::string value = result->get_header_value("Retry-After");
  int64_t seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return std::nullopt;
  return std::min(seconds, kMaxRetryAfterMs / 1000) * 1000;
}

}  // namespace

StatusOr<std::unique_ptr<RemoteWriteForwarder>> RemoteWriteForwarder::Start(
    const ForwarderOptions& options) {
  std::string base, path;
  RETURN_IF_ERROR(SplitUrl(options.url, &base, &path));
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
      new RemoteWriteForwarder(options, std::move(queue).value(), base, path));
  forwarder->thread_ = std::thread([f = forwarder.get()] { f->Run(); });
  return forwarder;
}

RemoteWriteForwarder::RemoteWriteForwarder(const ForwarderOptions& options,
                                           std::unique_ptr<DiskQueue> queue, std::string base,
                                           std::string path)
    : options_(options), queue_(std::move(queue)), base_(std::move(base)), path_(std::move(path)) {}

RemoteWriteForwarder::~RemoteWriteForwarder() { Stop(); }

void RemoteWriteForwarder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (client_ != nullptr) client_->stop();
    cv_.notify_all();
  }
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
  httplib::Client client(base_);
  const auto timeout = std::chrono::milliseconds(options_.timeout_ms);
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  client.set_keep_alive(true);
  httplib::Headers headers = {
      {"Content-Encoding", "snappy"},
      {"User-Agent", "gpufleet/0.1.0"},
      {"X-Prometheus-Remote-Write-Version", "0.1.0"},
  };
  if (!options_.bearer_token.empty()) {
    headers.emplace("Authorization", "Bearer " + options_.bearer_token);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    client_ = &client;
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
    httplib::Result result = client.Post(path_, headers, body.data(), body.size(),
                                         "application/x-protobuf");
    const int status = result ? result->status : 0;
    const bool retry = !result || status == 429 || status >= 500;
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
  std::lock_guard<std::mutex> lock(mu_);
  client_ = nullptr;
}

}  // namespace gpufleet
