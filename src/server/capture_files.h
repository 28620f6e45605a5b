// The files a deep capture left on the server, for GET
// /api/v1/incidents/{id}/capture[/{name}] (server/console_api.h).
//
// A capture's files are the regular files directly in the capture output
// directory whose name is the capture's output name (the last part of the
// incident's capture_path) or that name followed by "." (its ".log" with
// the command's output, a profiler's ".nsys-rep" or ".db"). Nothing else in
// the directory is listed or served, nor a name outside IsSafeCaptureValue's
// characters, nor a link or a folder: a name is served only when this
// listing holds it, so no request can reach outside the directory.
//
// Thread safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpufleet {

struct CaptureFile {
  std::string name;  // file name in the output directory
  uint64_t bytes = 0;
};

// Empty when `capture_path` is not directly in `output_dir`, when the
// directory cannot be read, or when the capture wrote nothing here (a
// command that left its output on a remote node). Sorted by name.
std::vector<CaptureFile> ListCaptureFiles(const std::string& output_dir,
                                          const std::string& capture_path);

}  // namespace gpufleet
