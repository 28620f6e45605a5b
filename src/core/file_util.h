// File helpers with errors that name the path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace gpufleet {

// Reads a whole file. NotFound / PermissionDenied / DataLoss name the path.
StatusOr<std::string> ReadFileToString(const std::string& path);
// A whole file with surrounding whitespace trimmed (a sysfs attribute such
// as "0x74a1\n"); nullopt when it cannot be read, whatever the reason.
std::optional<std::string> ReadTrimmedFile(const std::string& path);
// A whole file's bytes, read-only. Regular files are memory-mapped (the page
// cache serves them without a copy); pipes, /proc files and anything mmap
// refuses are read into memory instead. Move-only; the view lives as long as
// the object.
class FileContents {
 public:
  static StatusOr<FileContents> Open(const std::string& path);
  FileContents(FileContents&& o) noexcept;
  FileContents& operator=(FileContents&& o) noexcept;
  FileContents(const FileContents&) = delete;
  FileContents& operator=(const FileContents&) = delete;
  ~FileContents();

  std::string_view view() const { return view_; }

 private:
  FileContents() = default;
  void Release();

  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string owned_;
  std::string_view view_;
};

// Writes atomically (temp file + rename). A path that exists and is not a
// regular file (a device such as /dev/null, a FIFO) is written in place:
// renaming over it would replace the device with a file.
Status WriteStringToFile(const std::string& path, std::string_view data);

// A fresh private directory under $TMPDIR (or /tmp), removed with its
// contents when the object goes. Move-only.
class ScratchDir {
 public:
  // `prefix` starts the directory's name ("gpufleet-cost" -> gpufleet-cost.Xa81Kq).
  static StatusOr<ScratchDir> Create(std::string_view prefix);
  ScratchDir(ScratchDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ScratchDir& operator=(ScratchDir&&) = delete;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace gpufleet
