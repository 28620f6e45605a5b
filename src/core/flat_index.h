// FlatIndex: an open-addressing hash index that hands out dense ids (0, 1,
// 2, ... in insertion order) for keys the caller stores itself. It keeps
// only one 8-byte slot per id (32 bits of the hash and the id) plus the
// hashes for regrowing, so a table of a hundred thousand keys is a few
// contiguous arrays: no node per key to allocate, chase or free, which is
// what std::unordered_map costs on the hot paths of `gpufleet translate`.
//
// Thread safety: as std::vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpufleet {

class FlatIndex {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  // The id whose key `is_key(id)` says equals the one sought, among those
  // inserted with `hash`; kNotFound when none.
  template <typename IsKey>
  uint32_t Find(uint64_t hash, const IsKey& is_key) const {
    if (slots_.empty()) return kNotFound;
    const size_t mask = slots_.size() - 1;
    const uint64_t tag = Tag(hash);
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      uint64_t slot = slots_[i];
      if (slot == kEmpty) return kNotFound;
      if ((slot & kTagMask) == tag && is_key(static_cast<uint32_t>(slot))) {
        return static_cast<uint32_t>(slot);
      }
    }
  }
  // Adds a key with `hash` and returns its id (== size() before the call).
  // REQUIRES: Find() for that key returns kNotFound.
  uint32_t Insert(uint64_t hash) {
    if ((hashes_.size() + 1) * 2 > slots_.size()) Grow();
    uint32_t id = static_cast<uint32_t>(hashes_.size());
    hashes_.push_back(hash);
    Place(id);
    return id;
  }
  size_t size() const { return hashes_.size(); }
  // Starts loading the slot where a Find for `hash` begins, so a caller
  // with many lookups can overlap their cache misses.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  }
  void Clear() {
    slots_.clear();
    hashes_.clear();
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  static constexpr uint64_t kTagMask = 0xffffffff00000000ull;
  static uint64_t Tag(uint64_t hash) { return (hash << 32) & kTagMask; }

  void Place(uint32_t id) {
    const size_t mask = slots_.size() - 1;
    size_t i = hashes_[id] & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = Tag(hashes_[id]) | id;
  }
  void Grow() {
    slots_.assign(slots_.empty() ? 64 : slots_.size() * 2, kEmpty);
    for (uint32_t id = 0; id < hashes_.size(); ++id) Place(id);
  }

  std::vector<uint64_t> slots_;  // Tag(hash) | id, or kEmpty; size a power of two
  std::vector<uint64_t> hashes_;  // per id
};

}  // namespace gpufleet
