#include "place/python_random.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace gpufleet::place {
namespace {

constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpper = 0x80000000U;
constexpr uint32_t kLower = 0x7fffffffU;

}  // namespace

void PythonRandom::InitGenRand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i) {
    mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  index_ = kN;
}

PythonRandom::PythonRandom(uint64_t seed) {
  std::vector<uint32_t> key;
  for (uint64_t n = seed; n != 0; n >>= 32) key.push_back(static_cast<uint32_t>(n));
  if (key.empty()) key.push_back(0);
  // init_by_array.
  InitGenRand(19650218U);
  int i = 1;
  size_t j = 0;
  for (int k = std::max<int>(kN, static_cast<int>(key.size())); k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] +
             static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = kUpper;  // a non-zero state
  index_ = kN;
}

void PythonRandom::Twist() {
  for (int k = 0; k < kN; ++k) {
    const uint32_t y = (mt_[k] & kUpper) | (mt_[(k + 1) % kN] & kLower);
    mt_[k] = mt_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMatrixA : 0U);
  }
  index_ = 0;
}

uint32_t PythonRandom::Next32() {
  if (index_ >= kN) Twist();
  uint32_t y = mt_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

double PythonRandom::Random() {
  const uint32_t a = Next32() >> 5, b = Next32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint32_t PythonRandom::GetRandBits(int k) { return Next32() >> (32 - k); }

size_t PythonRandom::RandBelow(size_t n) {
  const int k = std::bit_width(n);
  uint32_t r = GetRandBits(k);
  while (r >= n) r = GetRandBits(k);
  return r;
}

}  // namespace gpufleet::place
