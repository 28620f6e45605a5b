// PythonRandom: the draws of CPython's `random.Random(seed)` (Python 3),
// bit for bit, so a simulator written in Python (Gavel) can be given the
// very job sample it drew. The generator is the 32-bit Mersenne Twister
// (MT19937, Matsumoto & Nishimura 1998) with CPython's seeding and float
// conversion:
// - seed(n), n an int: init_by_array with the 32-bit words of |n|, least
//   significant first (n = 0 gives the one word 0);
// - random(): (a * 2^26 + b) / 2^53, a = next32() >> 5, b = next32() >> 6;
// - uniform(a, b): a + (b - a) * random();
// - getrandbits(k), k <= 32: next32() >> (32 - k);
// - randbelow(n) (what choice() and randrange() use): k = bit length of n,
//   getrandbits(k) until the value is below n.
// Not thread-safe; cheap to copy.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gpufleet::place {

class PythonRandom {
 public:
  explicit PythonRandom(uint64_t seed);

  uint32_t Next32();
  double Random();
  double Uniform(double a, double b) { return a + (b - a) * Random(); }
  uint32_t GetRandBits(int k);  // 1 <= k <= 32
  size_t RandBelow(size_t n);   // n >= 1, n < 2^32

 private:
  static constexpr int kN = 624;
  void InitGenRand(uint32_t s);
  void Twist();

  std::array<uint32_t, kN> mt_{};
  int index_ = kN;
};

}  // namespace gpufleet::place
