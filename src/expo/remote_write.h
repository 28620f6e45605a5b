// Prometheus remote write 1.0: snappy-compressed protobuf WriteRequest bodies.
//
// Wire format (remote write spec 1.0): HTTP POST body = snappy *block* format
// of `WriteRequest{repeated TimeSeries timeseries = 1}`, where
// `TimeSeries{repeated Label labels = 1; repeated Sample samples = 2}`,
// `Label{string name = 1; string value = 2}` and
// `Sample{double value = 1; int64 timestamp = 2}` (milliseconds since epoch).
// The message text lives in expo/prompb/remote.proto.
//
// All functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "core/sample.h"
#include "core/status.h"

namespace gpufleet {

struct RemoteWriteSample {
  int64_t timestamp_ms = 0;
  double value = 0;
};

struct RemoteWriteSeries {
  Labels labels;  // includes __name__
  std::vector<RemoteWriteSample> samples;
};

struct RemoteWriteRequest {
  std::vector<RemoteWriteSeries> series;
};

// Bounds that protect a receiver from label floods and decompression bombs.
struct RemoteWriteLimits {
  size_t max_labels_per_series = 64;
  size_t max_label_bytes = 4096;  // per name or value
  size_t max_series = 1'000'000;
  size_t max_decompressed_bytes = 256 << 20;
};

struct RemoteWriteDecodeStats {
  uint64_t series_accepted = 0;
  uint64_t series_rejected = 0;
  uint64_t samples_accepted = 0;
  uint64_t samples_rejected = 0;
  uint64_t series_held = 0;  // of series_accepted: taken by a HeldSeries
  // The first 10 reasons, e.g. "series 3: label name \"1x\" is invalid".
  std::vector<std::string> errors;
};

// Decodes a snappy (block format) compressed protobuf WriteRequest. Returns InvalidArgument
// naming the byte offset when the body cannot be decoded at all (bad snappy, bad protobuf,
// too large). Series that are invalid on their own (no __name__, invalid / duplicate /
// unsorted label names, over the limits, non-finite timestamps) are dropped and counted in
// `stats`; all valid series of the same batch are returned. Labels with an empty value are
// ignored (an empty value equals an absent label). Unknown fields are skipped, as protobuf
// requires. `stats` may be null; when given it is added to, not reset.
StatusOr<RemoteWriteRequest> DecodeRemoteWrite(std::string_view body,
                                               const RemoteWriteLimits& limits,
                                               RemoteWriteDecodeStats* stats);

// The same, into `out`, reusing its storage: the series slots it already
// has keep their label strings and sample vectors (with their capacity), so
// a receiver that decodes many similar batches into one request on one
// thread allocates almost nothing after the first. On success `out` holds
// exactly the batch's valid series; on error it is empty.
//
// With `held`, each series is first offered to it, before its labels are
// checked or copied: its labels as views into the decoded body (as sent,
// unchecked; valid during the call) and its samples (out-of-range
// timestamps already dropped). When it returns true it took the series
// (a receiver that already holds a series with exactly those labels, which
// were checked when it first came): the series counts as accepted (and in
// series_held) and is not put in `out`. When it returns false the series
// is checked and decoded as without it.
using HeldSeries =
    std::function<bool(std::span<const LabelView>, std::span<const RemoteWriteSample>)>;
Status DecodeRemoteWriteInto(std::string_view body, const RemoteWriteLimits& limits,
                             RemoteWriteDecodeStats* stats, RemoteWriteRequest* out,
                             const HeldSeries* held = nullptr);

// Protobuf-encodes and snappy-compresses `request` (labels sorted by name, as the spec
// requires; Labels keeps them sorted).
std::string EncodeRemoteWrite(const RemoteWriteRequest& request);

// Converts canonical Samples (name + labels + ns timestamp) into a request, one series per
// sample group with equal name and labels (order of first appearance; samples in input
// order). `default_timestamp_ms` replaces timestamp_ns == 0.
RemoteWriteRequest ToRemoteWrite(const std::vector<Sample>& samples,
                                 int64_t default_timestamp_ms);

}  // namespace gpufleet
