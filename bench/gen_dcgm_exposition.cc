// Writes a dcgm-exporter style exposition for benchmarks (see
// dcgm_exposition_gen.h). Usage:
//   gen_dcgm_exposition --size-mb 250 [--seed N] > file.prom
// Prints "samples=N bytes=M" to stderr.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "bench/dcgm_exposition_gen.h"

int main(int argc, char** argv) {
  double size_mb = 250;
  unsigned long long seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if ((arg == "--size-mb" || arg == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      const char* v = argv[++i];
      if (arg == "--size-mb") {
        size_mb = std::strtod(v, &end);
      } else {
        seed = std::strtoull(v, &end, 10);
      }
      if (end == v || *end != '\0' || size_mb <= 0) {
        std::fprintf(stderr, "gen_dcgm_exposition: bad value for %s: %s\n", argv[i - 1], v);
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: gen_dcgm_exposition [--size-mb N] [--seed N] > out.prom\n");
      return 2;
    }
  }
  gpufleet::bench::DcgmExpositionShape shape;
  shape.gpus = gpufleet::bench::GpusForBytes(static_cast<size_t>(size_mb * 1e6));
  shape.seed = seed;
  bool write_ok = true;
  auto size = gpufleet::bench::GenerateDcgmExposition(shape, [&](std::string_view chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), stdout) != chunk.size()) write_ok = false;
  });
  if (std::fflush(stdout) != 0 || !write_ok) {
    std::fprintf(stderr, "gen_dcgm_exposition: write failed: %s\n", std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr, "samples=%zu bytes=%zu gpus=%zu\n", size.samples, size.bytes, shape.gpus);
  return 0;
}
