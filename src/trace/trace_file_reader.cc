#include "trace/trace_file_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace gpufleet::trace {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

StatusOr<FilePtr> Open(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    return ErrnoError(path, err);
  }
  return FilePtr(f);
}

bool IsGzip(std::string_view s) {
  return s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0x1f &&
         static_cast<unsigned char>(s[1]) == 0x8b;
}

// Inflates `in` (gzip, possibly several members) into `out`, stopping after
// `limit` output bytes. Returns false with `error` set when the stream is cut
// short or corrupt; what inflated so far stays in `out`.
bool Gunzip(std::string_view in, size_t limit, std::string& out, std::string& error) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    error = "inflateInit failed";
    return false;
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT32_MAX));
  bool ok = true;
  // Typical Kineto JSON compresses ~10-20x; grow geometrically from there.
  if (out.capacity() < std::min(limit, in.size() * 8)) out.reserve(std::min(limit, in.size() * 8));
  while (out.size() < limit) {
    if (out.size() == out.capacity()) out.reserve(std::min(limit, out.capacity() * 2 + 65536));
    size_t old = out.size();
    size_t room = std::min(out.capacity() - old, limit - old);
    room = std::min<size_t>(room, UINT32_MAX);
    out.resize(old + room);  // value-initialises; cheap relative to inflate
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    zs.avail_out = static_cast<uInt>(room);
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(old + room - zs.avail_out);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members: continue if more input follows.
      size_t used = reinterpret_cast<const char*>(zs.next_in) - in.data();
      if (used >= in.size()) break;
      inflateReset(&zs);
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      ok = false;
      error = "gzip stream truncated at compressed byte " + std::to_string(in.size());
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      ok = false;
      size_t at = reinterpret_cast<const char*>(zs.next_in) - in.data();
      error = "corrupt gzip data near compressed byte " + std::to_string(at) + " (" +
              (zs.msg ? zs.msg : "inflate error") + ")";
      break;
    }
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      ok = false;
      error = "gzip stream truncated at compressed byte " + std::to_string(in.size());
      break;
    }
  }
  inflateEnd(&zs);
  return ok;
}

}  // namespace

StatusOr<TraceBytes> ReadTraceFile(const std::string& path) {
  ASSIGN_OR_RETURN(FileContents contents, FileContents::Open(path));
  TraceBytes out;
  std::string_view raw = contents.view();
  out.file_bytes = raw.size();
  if (!IsGzip(raw)) {
    out.file = std::move(contents);
    return out;
  }
  out.gzip = true;
  std::string error;
  if (!Gunzip(raw, SIZE_MAX, out.inflated, error)) {
    if (out.inflated.empty()) return DataLossError(path + ": " + error + "; nothing inflated");
    out.partial = true;
    out.error = error;
  }
  return out;
}

StatusOr<std::string> ReadTraceHead(const std::string& path, size_t max_bytes) {
  ASSIGN_OR_RETURN(FilePtr f, Open(path));
  std::string raw(std::max<size_t>(max_bytes, 2), '\0');
  size_t n = std::fread(raw.data(), 1, raw.size(), f.get());
  raw.resize(n);
  if (!IsGzip(raw)) {
    raw.resize(std::min(n, max_bytes));
    return raw;
  }
  // Compressed data rarely expands less than 1:1; read more until we have enough.
  std::string all = raw;
  std::string out, error;
  for (int i = 0; i < 8; ++i) {
    out.clear();
    Gunzip(all, max_bytes, out, error);
    if (out.size() >= max_bytes || std::feof(f.get())) break;
    char buf[1 << 14];
    size_t m = std::fread(buf, 1, sizeof(buf), f.get());
    if (m == 0) break;
    all.append(buf, m);
  }
  return out;
}

}  // namespace gpufleet::trace
