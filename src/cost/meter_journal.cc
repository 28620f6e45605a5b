#include "cost/meter_journal.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace gpufleet::cost {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the journal body is written in the host's byte order, little-endian");

constexpr uint8_t kVersion = 1;

// Adds a count; false when it is negative or the sum would overflow (only
// a corrupt body can do either).
bool AddCount(int64_t& into, int64_t d) {
  return d >= 0 && !__builtin_add_overflow(into, d, &into);
}

bool Merge(MinuteDelta& into, const MinuteDelta& d) {
  into.util_sum += d.util_sum;
  into.bw_sum += d.bw_sum;
  into.energy_j += d.energy_j;
  into.last_up_ms = std::max(into.last_up_ms, d.last_up_ms);
  into.last_util_ms = std::max(into.last_util_ms, d.last_util_ms);
  into.last_bw_ms = std::max(into.last_bw_ms, d.last_bw_ms);
  return AddCount(into.present, d.present) && AddCount(into.util_n, d.util_n) &&
         AddCount(into.bw_n, d.bw_n);
}

bool Merge(HolderDelta& into, const HolderDelta& d) {
  into.util_sum += d.util_sum;
  into.last_info_ms = std::max(into.last_info_ms, d.last_info_ms);
  into.last_util_ms = std::max(into.last_util_ms, d.last_util_ms);
  return AddCount(into.present, d.present) && AddCount(into.util_n, d.util_n);
}

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  bool Get(T& v) {
    if (in_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  size_t pos() const { return pos_; }
  size_t left() const { return in_.size() - pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

std::pair<int64_t, int64_t> MeterDeltas::MinuteRange() const {
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  auto see = [&](int64_t minute) {
    first = std::min(first, minute);
    last = std::max(last, minute);
  };
  for (const auto& [k, m] : minutes) see(k.second);
  for (const auto& [k, h] : holders) see(std::get<1>(k));
  return {first, last};
}

std::string EncodeDeltas(const MeterDeltas& d) {
  Writer w;
  w.out().reserve(13 + d.minutes.size() * 88 + d.holders.size() * 64 + d.cursors.size() * 32);
  w.Put(kVersion);
  w.Put(static_cast<uint32_t>(d.minutes.size()));
  for (const auto& [k, m] : d.minutes) {
    w.Put(k.first);
    w.Put(k.second);
    w.Put(m.present);
    w.Put(m.util_sum);
    w.Put(m.util_n);
    w.Put(m.bw_sum);
    w.Put(m.bw_n);
    w.Put(m.energy_j);
    w.Put(m.last_up_ms);
    w.Put(m.last_util_ms);
    w.Put(m.last_bw_ms);
  }
  w.Put(static_cast<uint32_t>(d.holders.size()));
  for (const auto& [k, h] : d.holders) {
    w.Put(std::get<0>(k));
    w.Put(std::get<1>(k));
    w.Put(std::get<2>(k));
    w.Put(h.present);
    w.Put(h.util_sum);
    w.Put(h.util_n);
    w.Put(h.last_info_ms);
    w.Put(h.last_util_ms);
  }
  w.Put(static_cast<uint32_t>(d.cursors.size()));
  for (const auto& [k, c] : d.cursors) {
    w.Put(k.first);
    w.Put(k.second);
    w.Put(c.last_ms);
    w.Put(c.last_value);
  }
  return std::move(w.out());
}

Status DecodeDeltasInto(std::string_view body, std::string_view where, MeterDeltas& into) {
  Reader r(body);
  auto bad = [&](std::string_view what) {
    return DataLossError(std::string(where) + ": " + std::string(what) + " at byte " +
                         std::to_string(r.pos()) + " of " + std::to_string(body.size()));
  };
  uint8_t version = 0;
  if (!r.Get(version)) return bad("empty journal body");
  if (version != kVersion) return bad("unknown journal version " + std::to_string(version));
  // Each count is checked against the bytes left, so a corrupt count
  // cannot make the loop run long.
  auto count = [&](size_t record, uint32_t& n) {
    return r.Get(n) && static_cast<uint64_t>(n) * record <= r.left();
  };
  uint32_t n = 0;
  if (!count(88, n)) return bad("truncated minute deltas");
  for (uint32_t i = 0; i < n; ++i) {
    int64_t dev = 0, minute = 0;
    MinuteDelta m;
    if (!(r.Get(dev) && r.Get(minute) && r.Get(m.present) && r.Get(m.util_sum) && r.Get(m.util_n) &&
          r.Get(m.bw_sum) && r.Get(m.bw_n) && r.Get(m.energy_j) && r.Get(m.last_up_ms) &&
          r.Get(m.last_util_ms) && r.Get(m.last_bw_ms))) {
      return bad("truncated minute delta");
    }
    if (!Merge(into.minutes[{dev, minute}], m)) return bad("minute delta count out of range");
  }
  if (!count(64, n)) return bad("truncated holder deltas");
  for (uint32_t i = 0; i < n; ++i) {
    int64_t dev = 0, minute = 0, holder = 0;
    HolderDelta h;
    if (!(r.Get(dev) && r.Get(minute) && r.Get(holder) && r.Get(h.present) && r.Get(h.util_sum) &&
          r.Get(h.util_n) && r.Get(h.last_info_ms) && r.Get(h.last_util_ms))) {
      return bad("truncated holder delta");
    }
    if (!Merge(into.holders[{dev, minute, holder}], h)) {
      return bad("holder delta count out of range");
    }
  }
  if (!count(32, n)) return bad("truncated counter cursors");
  for (uint32_t i = 0; i < n; ++i) {
    int64_t dev = 0, series = 0;
    CounterCursor c;
    if (!(r.Get(dev) && r.Get(series) && r.Get(c.last_ms) && r.Get(c.last_value))) {
      return bad("truncated counter cursor");
    }
    into.cursors[{dev, series}] = c;
  }
  if (r.left() != 0) return bad("trailing bytes");
  return OkStatus();
}

}  // namespace gpufleet::cost
