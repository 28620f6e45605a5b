#include "expo/remote_write.h"

#include <snappy.h>

#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "expo/prompb/remote.pb.h"
#include "google/protobuf/arena.h"

namespace gpufleet {
namespace {

constexpr size_t kMaxErrors = 10;
// A timestamp in ms must still fit int64 nanoseconds (years 1677..2262) once it reaches the
// window store; anything beyond that is an absurd value, not data.
constexpr int64_t kMaxAbsTimestampMs = std::numeric_limits<int64_t>::max() / 1'000'000;

// Protobuf wire types (https://protobuf.dev/programming-guides/encoding/).
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A bounds-checked cursor over protobuf bytes. The decoder is hand-written rather than
// libprotobuf's generated parser for two reasons: errors can name the byte offset, and
// labels go straight from the buffer into the result without an intermediate message.
class WireReader {
 public:
  WireReader(const uint8_t* begin, const uint8_t* end, const uint8_t* origin)
      : p_(begin), end_(end), origin_(origin) {}

  bool done() const { return p_ >= end_; }
  size_t offset() const { return static_cast<size_t>(p_ - origin_); }

  Status ReadVarint(uint64_t* out) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return Error("truncated varint");
      uint8_t byte = *p_++;
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *out = result;
        return OkStatus();
      }
    }
    return Error("varint longer than 10 bytes");
  }

  Status ReadFixed64(uint64_t* out) {
    if (end_ - p_ < 8) return Error("truncated fixed64");
    std::memcpy(out, p_, 8);  // little-endian on every platform gpufleet builds for
    p_ += 8;
    return OkStatus();
  }

  // Reads a length prefix and returns the bytes it covers as a sub-reader.
  Status ReadLengthDelimited(WireReader* sub) {
    size_t at = offset();
    uint64_t length = 0;
    RETURN_IF_ERROR(ReadVarint(&length));
    if (length > static_cast<uint64_t>(end_ - p_)) {
      return ErrorAt(at, "length " + std::to_string(length) + " runs past the end of its message");
    }
    *sub = WireReader(p_, p_ + length, origin_);
    p_ += length;
    return OkStatus();
  }

  Status ReadTag(uint32_t* field, uint32_t* wire_type) {
    size_t at = offset();
    uint64_t tag = 0;
    RETURN_IF_ERROR(ReadVarint(&tag));
    *field = static_cast<uint32_t>(tag >> 3);
    *wire_type = static_cast<uint32_t>(tag & 7);
    if (*field == 0 || tag >> 3 > 0x1fffffff) return ErrorAt(at, "invalid field number");
    return OkStatus();
  }

  // Skips one field of `wire_type` (unknown fields must be ignored by proto3 readers).
  Status Skip(uint32_t wire_type) {
    uint64_t ignored = 0;
    WireReader sub(nullptr, nullptr, nullptr);
    switch (wire_type) {
      case kVarint: return ReadVarint(&ignored);
      case kFixed64: return ReadFixed64(&ignored);
      case kLengthDelimited: return ReadLengthDelimited(&sub);
      case kFixed32:
        if (end_ - p_ < 4) return Error("truncated fixed32");
        p_ += 4;
        return OkStatus();
      default: return Error("unsupported wire type " + std::to_string(wire_type));
    }
  }

  // The usual encoding of a label, field 1 of a TimeSeries (name, then
  // value, each once, every length under 128): 0a L 0a n <name> [12 v
  // <value>]. Reads it and returns true; returns false and reads nothing
  // for any other form, which the general reader then takes (and names
  // the offset of whatever is wrong). Most of a write is labels.
  bool TryLabelField(LabelView* label) {
    const uint8_t* p = p_;
    if (end_ - p < 4 || p[0] != 0x0a || p[1] >= 0x80 || p[2] != 0x0a) return false;
    const uint8_t* const field_end = p + 2 + p[1];
    const uint8_t name_size = p[3];
    if (field_end > end_ || name_size >= 0x80 || p + 4 + name_size > field_end) return false;
    const uint8_t* q = p + 4 + name_size;
    std::string_view value;
    if (q < field_end) {
      if (field_end - q < 2 || q[0] != 0x12 || q[1] >= 0x80 || q + 2 + q[1] != field_end) {
        return false;
      }
      value = {reinterpret_cast<const char*>(q + 2), q[1]};
    }
    *label = {{reinterpret_cast<const char*>(p + 4), name_size}, value};
    p_ = field_end;
    return true;
  }

  // The same for a sample, field 2: 12 L [09 <value, 8 bytes>] [10
  // <timestamp varint>], in that order.
  bool TrySampleField(RemoteWriteSample* sample) {
    const uint8_t* p = p_;
    if (end_ - p < 2 || p[0] != 0x12 || p[1] >= 0x80 || p[1] > end_ - p - 2) return false;
    const uint8_t* q = p + 2;
    const uint8_t* const field_end = q + p[1];
    RemoteWriteSample out;
    if (q < field_end && *q == 0x09) {
      if (field_end - q < 9) return false;
      std::memcpy(&out.value, q + 1, 8);
      q += 9;
    }
    if (q < field_end && *q == 0x10) {
      ++q;
      uint64_t ts = 0;
      for (int shift = 0;; shift += 7) {
        if (q == field_end || shift >= 64) return false;
        const uint8_t byte = *q++;
        ts |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) break;
      }
      out.timestamp_ms = static_cast<int64_t>(ts);
    }
    if (q != field_end) return false;
    *sample = out;
    p_ = field_end;
    return true;
  }

  std::string_view View() const {
    return {reinterpret_cast<const char*>(p_), static_cast<size_t>(end_ - p_)};
  }

  Status Error(const std::string& what) const { return ErrorAt(offset(), what); }
  Status ErrorAt(size_t at, const std::string& what) const {
    return InvalidArgumentError("remote write: protobuf offset " + std::to_string(at) + ": " +
                                what);
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* origin_;
};

// Scratch space reused across series (and calls on one thread) so a batch costs no
// allocations beyond the result itself.
struct Scratch {
  std::string body;
  std::vector<LabelView> labels;
  std::vector<RemoteWriteSample> samples;
};

Status ReadLabel(WireReader reader, LabelView* label) {
  *label = {};
  while (!reader.done()) {
    uint32_t field = 0, wire_type = 0;
    RETURN_IF_ERROR(reader.ReadTag(&field, &wire_type));
    if ((field == 1 || field == 2) && wire_type == kLengthDelimited) {
      WireReader sub(nullptr, nullptr, nullptr);
      RETURN_IF_ERROR(reader.ReadLengthDelimited(&sub));
      (field == 1 ? label->first : label->second) = sub.View();
    } else {
      RETURN_IF_ERROR(reader.Skip(wire_type));
    }
  }
  return OkStatus();
}

Status ReadSample(WireReader reader, RemoteWriteSample* sample) {
  *sample = {};
  while (!reader.done()) {
    uint32_t field = 0, wire_type = 0;
    RETURN_IF_ERROR(reader.ReadTag(&field, &wire_type));
    if (field == 1 && wire_type == kFixed64) {
      uint64_t bits = 0;
      RETURN_IF_ERROR(reader.ReadFixed64(&bits));
      std::memcpy(&sample->value, &bits, sizeof bits);
    } else if (field == 2 && wire_type == kVarint) {
      uint64_t raw = 0;
      RETURN_IF_ERROR(reader.ReadVarint(&raw));
      sample->timestamp_ms = static_cast<int64_t>(raw);  // int64 is two's complement on wire
    } else {
      RETURN_IF_ERROR(reader.Skip(wire_type));
    }
  }
  return OkStatus();
}

// Reads one TimeSeries message into `scratch`. Only structural errors fail.
Status ReadSeries(WireReader reader, Scratch* scratch) {
  scratch->labels.clear();
  scratch->samples.clear();
  while (!reader.done()) {
    LabelView label;
    RemoteWriteSample sample;
    if (reader.TryLabelField(&label)) {
      scratch->labels.push_back(label);
      continue;
    }
    if (reader.TrySampleField(&sample)) {
      scratch->samples.push_back(sample);
      continue;
    }
    uint32_t field = 0, wire_type = 0;
    RETURN_IF_ERROR(reader.ReadTag(&field, &wire_type));
    if ((field == 1 || field == 2) && wire_type == kLengthDelimited) {
      WireReader sub(nullptr, nullptr, nullptr);
      RETURN_IF_ERROR(reader.ReadLengthDelimited(&sub));
      if (field == 1) {
        RETURN_IF_ERROR(ReadLabel(sub, &label));
        scratch->labels.push_back(label);
      } else {
        RETURN_IF_ERROR(ReadSample(sub, &sample));
        scratch->samples.push_back(sample);
      }
    } else {
      RETURN_IF_ERROR(reader.Skip(wire_type));
    }
  }
  return OkStatus();
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t extra = 0;
    uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      extra = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (extra >= n - i) return false;  // truncated sequence
    for (size_t k = 1; k <= extra; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Reject overlong forms, surrogates and code points past U+10FFFF.
    static constexpr uint32_t kMinForLength[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

std::string Quote(std::string_view s) {
  constexpr size_t kMaxShown = 64;
  std::string out = "\"";
  AppendEscapedLabelValue(s.substr(0, kMaxShown), out);
  if (s.size() > kMaxShown) out += "...";
  out += '"';
  return out;
}

// Returns "" when the series' labels are acceptable, else the reason.
std::string ValidateLabels(const std::vector<LabelView>& labels, const RemoteWriteLimits& limits) {
  if (labels.size() > limits.max_labels_per_series) {
    return std::to_string(labels.size()) + " labels exceed the limit of " +
           std::to_string(limits.max_labels_per_series);
  }
  bool has_name = false;
  for (size_t i = 0; i < labels.size(); ++i) {
    const LabelView& label = labels[i];
    if (label.first.size() > limits.max_label_bytes ||
        label.second.size() > limits.max_label_bytes) {
      return "label " + Quote(label.first) + " is longer than " +
             std::to_string(limits.max_label_bytes) + " bytes";
    }
    if (!IsValidLabelName(label.first)) return "label name " + Quote(label.first) + " is invalid";
    if (i > 0 && label.first <= labels[i - 1].first) {
      return "label " + Quote(label.first) +
             (label.first == labels[i - 1].first ? " is duplicated" : " is not sorted by name");
    }
    if (!IsValidUtf8(label.second)) return "label " + Quote(label.first) + " value is not UTF-8";
    if (label.first == "__name__") {
      if (!IsValidMetricName(label.second)) {
        return "metric name " + Quote(label.second) + " is invalid";
      }
      has_name = true;
    }
  }
  if (!has_name) return "no __name__ label";
  return "";
}

void NoteError(RemoteWriteDecodeStats* stats, size_t series_index, const std::string& reason) {
  if (stats->errors.size() < kMaxErrors) {
    stats->errors.push_back("series " + std::to_string(series_index) + ": " + reason);
  }
}

// DecodeRemoteWriteInto without clearing `out` on error: fills
// out->series[0, *used) and leaves the rest as it was.
Status DecodeSeries(std::string_view body, const RemoteWriteLimits& limits,
                    RemoteWriteDecodeStats* stats, RemoteWriteRequest* out, size_t* used,
                    const HeldSeries* held) {
  thread_local Scratch scratch;

  size_t length = 0;
  if (!snappy::GetUncompressedLength(body.data(), body.size(), &length)) {
    return InvalidArgumentError(
        "remote write: snappy offset 0: invalid block header (framed format is not accepted)");
  }
  if (length > limits.max_decompressed_bytes) {
    return InvalidArgumentError("remote write: snappy offset 0: decompressed size " +
                                std::to_string(length) + " exceeds the limit of " +
                                std::to_string(limits.max_decompressed_bytes) + " bytes");
  }
  // resize() keeps the capacity of earlier calls; RawUncompress overwrites every byte.
  scratch.body.resize(length);
  if (!snappy::RawUncompress(body.data(), body.size(), scratch.body.data())) {
    return InvalidArgumentError("remote write: snappy offset 0: corrupt block of " +
                                std::to_string(body.size()) + " bytes");
  }

  const auto* data = reinterpret_cast<const uint8_t*>(scratch.body.data());
  WireReader reader(data, data + scratch.body.size(), data);
  size_t series_index = 0;
  while (!reader.done()) {
    uint32_t field = 0, wire_type = 0;
    RETURN_IF_ERROR(reader.ReadTag(&field, &wire_type));
    if (field != 1 || wire_type != kLengthDelimited) {
      RETURN_IF_ERROR(reader.Skip(wire_type));
      continue;
    }
    if (series_index >= limits.max_series) {
      return reader.Error("more than " + std::to_string(limits.max_series) + " series");
    }
    WireReader sub(nullptr, nullptr, nullptr);
    RETURN_IF_ERROR(reader.ReadLengthDelimited(&sub));
    RETURN_IF_ERROR(ReadSeries(sub, &scratch));
    const size_t index = series_index++;
    // Samples whose time cannot be held are dropped first, so a receiver
    // that takes the series below gets only storable ones.
    std::erase_if(scratch.samples, [&](const RemoteWriteSample& sample) {
      if (sample.timestamp_ms <= kMaxAbsTimestampMs && sample.timestamp_ms >= -kMaxAbsTimestampMs) {
        return false;
      }
      ++stats->samples_rejected;
      NoteError(stats, index,
                "timestamp " + std::to_string(sample.timestamp_ms) + " ms is out of range");
      return true;
    });
    if (held != nullptr && (*held)(scratch.labels, scratch.samples)) {
      ++stats->series_accepted;
      ++stats->series_held;
      stats->samples_accepted += scratch.samples.size();
      continue;
    }

    std::string reason = ValidateLabels(scratch.labels, limits);
    if (!reason.empty()) {
      ++stats->series_rejected;
      stats->samples_rejected += scratch.samples.size();
      NoteError(stats, index, reason);
      continue;
    }
    if (*used == out->series.size()) out->series.emplace_back();
    RemoteWriteSeries& series = out->series[(*used)++];
    // Sorted and unique (ValidateLabels); a reused slot keeps its strings.
    series.labels.AssignSorted(scratch.labels);
    series.samples.assign(scratch.samples.begin(), scratch.samples.end());
    ++stats->series_accepted;
    stats->samples_accepted += series.samples.size();
  }
  // A large batch must not pin its buffer on this thread forever.
  constexpr size_t kKeepScratchBytes = 4 << 20;
  if (scratch.body.capacity() > kKeepScratchBytes) std::string().swap(scratch.body);
  return OkStatus();
}

}  // namespace

Status DecodeRemoteWriteInto(std::string_view body, const RemoteWriteLimits& limits,
                             RemoteWriteDecodeStats* stats, RemoteWriteRequest* out,
                             const HeldSeries* held) {
  RemoteWriteDecodeStats local_stats;
  size_t used = 0;
  Status st = DecodeSeries(body, limits, stats != nullptr ? stats : &local_stats, out, &used, held);
  if (!st.ok()) {
    out->series.clear();
    return st;
  }
  out->series.resize(used);
  return OkStatus();
}

StatusOr<RemoteWriteRequest> DecodeRemoteWrite(std::string_view body,
                                               const RemoteWriteLimits& limits,
                                               RemoteWriteDecodeStats* stats) {
  RemoteWriteRequest request;
  RETURN_IF_ERROR(DecodeRemoteWriteInto(body, limits, stats, &request));
  return request;
}

std::string EncodeRemoteWrite(const RemoteWriteRequest& request) {
  google::protobuf::Arena arena;
  auto* message = google::protobuf::Arena::CreateMessage<prompb::WriteRequest>(&arena);
  message->mutable_timeseries()->Reserve(static_cast<int>(request.series.size()));
  for (const RemoteWriteSeries& series : request.series) {
    prompb::TimeSeries* ts = message->add_timeseries();
    for (const auto& [name, value] : series.labels.pairs()) {
      prompb::Label* label = ts->add_labels();
      label->set_name(name);
      label->set_value(value);
    }
    for (const RemoteWriteSample& sample : series.samples) {
      prompb::Sample* out = ts->add_samples();
      out->set_value(sample.value);
      out->set_timestamp(sample.timestamp_ms);
    }
  }
  std::string serialized;
  message->SerializeToString(&serialized);
  std::string compressed;
  snappy::Compress(serialized.data(), serialized.size(), &compressed);
  return compressed;
}

RemoteWriteRequest ToRemoteWrite(const std::vector<Sample>& samples,
                                 int64_t default_timestamp_ms) {
  RemoteWriteRequest request;
  std::unordered_map<std::string, size_t> index_of;
  std::string key;
  for (const Sample& sample : samples) {
    key.assign(sample.name);
    key += sample.labels.ToString();
    auto [it, inserted] = index_of.try_emplace(key, request.series.size());
    if (inserted) {
      RemoteWriteSeries& series = request.series.emplace_back();
      series.labels = sample.labels;
      series.labels.Set("__name__", sample.name);
    }
    int64_t timestamp_ms =
        sample.timestamp_ns == 0 ? default_timestamp_ms : sample.timestamp_ns / 1'000'000;
    request.series[it->second].samples.push_back({timestamp_ms, sample.value});
  }
  return request;
}

}  // namespace gpufleet
