// BigVector: a std::vector whose large buffers come straight from mmap with
// transparent huge pages requested (MADV_HUGEPAGE), for the few arrays of
// millions of elements that bulk jobs (translating a 250 MB exposition) fill
// once. With 4 KiB pages, first touching such arrays costs one page fault per
// 4 KiB, which was about a sixth of `gpufleet translate`; with 2 MiB pages it
// is one fault per 2 MiB. Where the kernel gives no huge pages (THP off) the
// buffer behaves like any other anonymous mapping.
//
// Buffers under kBigVectorMinBytes use the ordinary allocator. Mappings are
// made with MAP_NORESERVE: room reserved ahead and never touched costs
// address space only, not commit charge.
//
// Thread safety: as std::vector.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace gpufleet {

inline constexpr size_t kBigVectorMinBytes = size_t{4} << 20;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

template <typename T>
class LargePageAllocator {
 public:
  using value_type = T;

  LargePageAllocator() = default;
  template <typename U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes < kBigVectorMinBytes) return std::allocator<T>().allocate(n);
    // Map one huge page more than needed and trim both ends, so the buffer
    // starts on a huge-page boundary (huge pages must be aligned).
    size_t size = RoundUp(bytes);
    void* p = ::mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    char* raw = static_cast<char*>(p);
    char* start = reinterpret_cast<char*>(RoundUp(reinterpret_cast<size_t>(raw)));
    if (start > raw) ::munmap(raw, static_cast<size_t>(start - raw));
    size_t tail = static_cast<size_t>(raw + size + kHugePageBytes - (start + size));
    if (tail > 0) ::munmap(start + size, tail);
    ::madvise(start, size, MADV_HUGEPAGE);  // advice only: failure is harmless
    return reinterpret_cast<T*>(start);
  }
  void deallocate(T* p, size_t n) noexcept {
    size_t bytes = n * sizeof(T);
    if (bytes < kBigVectorMinBytes) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    ::munmap(p, RoundUp(bytes));
  }

  friend bool operator==(const LargePageAllocator&, const LargePageAllocator&) { return true; }

 private:
  static size_t RoundUp(size_t bytes) {
    return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
};

template <typename T>
using BigVector = std::vector<T, LargePageAllocator<T>>;
// A string grown the same way (arenas of rendered text).
using BigString = std::basic_string<char, std::char_traits<char>, LargePageAllocator<char>>;

}  // namespace gpufleet
