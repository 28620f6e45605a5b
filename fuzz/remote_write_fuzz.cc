// Fuzzes DecodeRemoteWrite: no crash, no hang, no huge allocation, consistent counts, and a
// round-trip property: whatever decodes, encoded again, decodes to the same series. Where
// libprotobuf also parses the body, every series as the decoder reads it (the labels and
// samples a HeldSeries receiver is offered, before any check) equals libprotobuf's
// reading: the decoder's short path for the usual encoding and its general path must
// agree with the reference.
// The first input byte picks the mode: odd = the rest is a snappy body as received; even =
// the rest is raw protobuf, compressed here, so mutations reach the protobuf reader instead
// of dying in snappy's checks.
#include <snappy.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expo/prompb/remote.pb.h"
#include "expo/remote_write.h"
#include "google/protobuf/stubs/logging.h"

namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void Fail(const char* what) {
  std::fprintf(stderr, "remote write fuzz: %s\n", what);
  std::abort();
}

// Offers every series to a HeldSeries that records it and takes none.
void CompareWithLibprotobuf(const std::string& body, const gpufleet::RemoteWriteLimits& limits) {
  using namespace gpufleet;
  std::string raw;
  if (!snappy::Uncompress(body.data(), body.size(), &raw)) return;
  google::protobuf::SetLogHandler(nullptr);  // it logs invalid UTF-8 it refuses
  prompb::WriteRequest reference;
  if (!reference.ParseFromString(raw)) return;
  struct Seen {
    std::vector<std::pair<std::string, std::string>> labels;
    std::vector<RemoteWriteSample> samples;
  };
  std::vector<Seen> seen;
  const HeldSeries record = [&](std::span<const LabelView> labels,
                                std::span<const RemoteWriteSample> samples) {
    Seen& s = seen.emplace_back();
    for (const auto& [n, v] : labels) s.labels.emplace_back(n, v);
    s.samples.assign(samples.begin(), samples.end());
    return false;
  };
  RemoteWriteRequest out;
  if (!DecodeRemoteWriteInto(body, limits, nullptr, &out, &record).ok()) return;
  if (seen.size() != static_cast<size_t>(reference.timeseries_size())) Fail("series read differ");
  constexpr int64_t kMaxMs = INT64_MAX / 1'000'000;
  for (size_t i = 0; i < seen.size(); ++i) {
    const prompb::TimeSeries& want = reference.timeseries(static_cast<int>(i));
    if (seen[i].labels.size() != static_cast<size_t>(want.labels_size()))
      Fail("labels read differ");
    for (int k = 0; k < want.labels_size(); ++k) {
      if (seen[i].labels[k].first != want.labels(k).name() ||
          seen[i].labels[k].second != want.labels(k).value()) {
        Fail("label read differs");
      }
    }
    size_t k = 0;
    for (const prompb::Sample& p : want.samples()) {
      if (p.timestamp() > kMaxMs || p.timestamp() < -kMaxMs) continue;  // dropped as out of range
      if (k == seen[i].samples.size()) Fail("fewer samples read");
      if (seen[i].samples[k].timestamp_ms != p.timestamp() ||
          !SameBits(seen[i].samples[k].value, p.value())) {
        Fail("sample read differs");
      }
      ++k;
    }
    if (k != seen[i].samples.size()) Fail("more samples read");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufleet;
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string body;
  if (data[0] & 1) {
    body.assign(rest);
  } else {
    snappy::Compress(rest.data(), rest.size(), &body);
  }
  RemoteWriteLimits limits;
  limits.max_labels_per_series = 16;
  limits.max_label_bytes = 256;
  limits.max_series = 1000;
  limits.max_decompressed_bytes = 1 << 20;
  RemoteWriteDecodeStats stats;
  auto decoded = DecodeRemoteWrite(body, limits, &stats);
  if (!decoded.ok()) return 0;
  CompareWithLibprotobuf(body, limits);
  if (decoded->series.size() != stats.series_accepted) Fail("series_accepted mismatch");
  if (stats.errors.size() > 10) Fail("more than 10 errors kept");
  uint64_t samples = 0;
  for (const RemoteWriteSeries& s : decoded->series) {
    if (!IsValidMetricName(s.labels.Get("__name__"))) Fail("accepted a bad metric name");
    samples += s.samples.size();
  }
  if (samples != stats.samples_accepted) Fail("samples_accepted mismatch");

  RemoteWriteDecodeStats again_stats;
  auto again = DecodeRemoteWrite(EncodeRemoteWrite(*decoded), RemoteWriteLimits{}, &again_stats);
  if (!again.ok()) Fail("re-encoded body does not decode");
  if (again_stats.series_rejected != 0 || again_stats.samples_rejected != 0) {
    Fail("re-encoded body has rejects");
  }
  if (again->series.size() != decoded->series.size()) Fail("series count differs");
  for (size_t i = 0; i < decoded->series.size(); ++i) {
    const RemoteWriteSeries& a = decoded->series[i];
    const RemoteWriteSeries& b = again->series[i];
    if (!(a.labels == b.labels)) Fail("labels differ");
    if (a.samples.size() != b.samples.size()) Fail("sample count differs");
    for (size_t k = 0; k < a.samples.size(); ++k) {
      if (a.samples[k].timestamp_ms != b.samples[k].timestamp_ms) Fail("timestamp differs");
      if (!SameBits(a.samples[k].value, b.samples[k].value)) Fail("value differs");
    }
  }
  return 0;
}
