// Test-only helpers for the trace core tests: temp files and small Kineto
// JSON documents built in code.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace gpufleet::trace::testing {

inline std::string TempPath(const std::string& name) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("gpufleet_trace_core_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / (std::to_string(counter++) + "_" + name)).string();
}

inline std::string WriteTemp(const std::string& name, const std::string& content) {
  std::string path = TempPath(name);
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(content.data(), 1, content.size(), f);
  std::fclose(f);
  return path;
}

inline std::string Gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string SourcePath(const std::string& rel) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/" + rel;
}

}  // namespace gpufleet::trace::testing
