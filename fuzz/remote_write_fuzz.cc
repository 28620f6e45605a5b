// Fuzzes DecodeRemoteWrite: no crash, no hang, no huge allocation, consistent counts, and a
// round-trip property: whatever decodes, encoded again, decodes to the same series.
// The first input byte picks the mode: odd = the rest is a snappy body as received; even =
// the rest is raw protobuf, compressed here, so mutations reach the protobuf reader instead
// of dying in snappy's checks.
#include <snappy.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "expo/remote_write.h"

namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void Fail(const char* what) {
  std::fprintf(stderr, "remote write fuzz: %s\n", what);
  std::abort();
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
