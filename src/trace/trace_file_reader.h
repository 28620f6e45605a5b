// Reads a trace file into memory, gunzipping it when it starts with the gzip
// magic (1f 8b). Used by importers that need the whole document (Kineto JSON)
// and by the loader to sniff formats.
//
// A truncated or corrupt gzip stream is not an error as long as something
// inflated: the bytes that did inflate are returned with `partial` set and
// `error` naming the compressed byte offset. Thread-compatible (no state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/file_util.h"
#include "core/status.h"

namespace gpufleet::trace {

struct TraceBytes {
  std::optional<FileContents> file;  // the file as read (mapped when it can be)
  std::string inflated;              // the gunzipped bytes of a gzip file
  uint64_t file_bytes = 0; // size on disk (compressed size for gzip)
  bool gzip = false;
  bool partial = false;    // the gzip stream ended early or was corrupt
  std::string error;       // why `partial`, with the compressed offset

  // The decompressed document. Not padded: SIMD parsers copy what they parse.
  std::string_view view() const { return gzip || !file ? std::string_view(inflated) : file->view(); }
};

// Reads all of `path`: plain files are memory-mapped, gzip ones inflated.
// NotFound/PermissionDenied name the path; DataLoss when the gzip stream
// yields nothing at all.
StatusOr<TraceBytes> ReadTraceFile(const std::string& path);

// Reads at most `max_bytes` of the (decompressed) start of `path` for sniffing.
StatusOr<std::string> ReadTraceHead(const std::string& path, size_t max_bytes = 4096);

}  // namespace gpufleet::trace
