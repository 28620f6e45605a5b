// Test driver for tests/integration/victoriametrics_forward_test.py: pushes a known number of
// samples through RemoteWriteForwarder (the real queue and sender) and waits until every
// batch is acknowledged, then prints the forwarder's counters as one JSON line.
//
//   remote_write_push --url U --queue DIR --series 50 --batches 80 --interval-ms 250
//
// Batch b carries one sample per series at timestamp start_ms + b * 1000, value b, so the
// receiver's content can be checked exactly. Exit 0 when everything was acknowledged.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "expo/remote_write.h"
#include "net/remote_write_forwarder.h"

namespace {

struct Args {
  std::string url, queue, metric = "gpufleet_forward_test";
  int series = 50, batches = 80, interval_ms = 250, drain_timeout_s = 120;
  int64_t start_ms = 0;
};

bool ParseArgs(int argc, char** argv, Args* args) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--url") args->url = value;
    else if (flag == "--queue") args->queue = value;
    else if (flag == "--metric") args->metric = value;
    else if (flag == "--series") args->series = std::atoi(value.c_str());
    else if (flag == "--batches") args->batches = std::atoi(value.c_str());
    else if (flag == "--interval-ms") args->interval_ms = std::atoi(value.c_str());
    else if (flag == "--drain-timeout-s") args->drain_timeout_s = std::atoi(value.c_str());
    else if (flag == "--start-ms") args->start_ms = std::atoll(value.c_str());
    else return false;
  }
  return argc % 2 == 1 && !args->url.empty() && !args->queue.empty() && args->series > 0 &&
         args->batches > 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpufleet;
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    std::fprintf(stderr,
                 "usage: %s --url U --queue DIR [--series N] [--batches B] [--interval-ms I] "
                 "[--start-ms T] [--metric NAME] [--drain-timeout-s S]\n",
                 argv[0]);
    return 2;
  }
  ForwarderOptions options;
  options.url = args.url;
  options.queue_dir = args.queue;
  options.min_backoff_ms = 50;
  options.max_backoff_ms = 1000;
  options.timeout_ms = 5000;
  auto forwarder = RemoteWriteForwarder::Start(options);
  if (!forwarder.ok()) {
    std::fprintf(stderr, "%s\n", forwarder.status().ToString().c_str());
    return 1;
  }
  if (args.start_ms == 0) {
    args.start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count() / 1000 * 1000;
  }
  for (int b = 0; b < args.batches; ++b) {
    RemoteWriteRequest request;
    request.series.resize(args.series);
    for (int i = 0; i < args.series; ++i) {
      request.series[i].labels = Labels{{"__name__", args.metric}, {"series", std::to_string(i)}};
      request.series[i].samples = {{args.start_ms + b * 1000LL, static_cast<double>(b)}};
    }
    Status st = (*forwarder)->Enqueue(EncodeRemoteWrite(request), args.series);
    if (!st.ok()) {
      std::fprintf(stderr, "enqueue batch %d: %s\n", b, st.ToString().c_str());
      return 1;
    }
    std::fprintf(stderr, "batch %d queued (sent %llu, retries %llu)\n", b,
                 static_cast<unsigned long long>((*forwarder)->stats().sent_batches),
                 static_cast<unsigned long long>((*forwarder)->stats().retries));
    std::this_thread::sleep_for(std::chrono::milliseconds(args.interval_ms));
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(args.drain_timeout_s);
  ForwarderStats stats = (*forwarder)->stats();
  while (stats.queue_batches > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stats = (*forwarder)->stats();
  }
  (*forwarder)->Stop();
  std::printf(
      "{\"start_ms\": %lld, \"sent_batches\": %llu, \"sent_samples\": %llu, \"retries\": %llu, "
      "\"dropped_rejected_batches\": %llu, \"dropped_queue_full_batches\": %llu, "
      "\"queue_batches\": %llu}\n",
      static_cast<long long>(args.start_ms), static_cast<unsigned long long>(stats.sent_batches),
      static_cast<unsigned long long>(stats.sent_samples),
      static_cast<unsigned long long>(stats.retries),
      static_cast<unsigned long long>(stats.dropped_rejected_batches),
      static_cast<unsigned long long>(stats.dropped_queue_full_batches),
      static_cast<unsigned long long>(stats.queue_batches));
  return stats.queue_batches == 0 && stats.dropped_rejected_batches == 0 &&
                 stats.dropped_queue_full_batches == 0
             ? 0
             : 1;
}
