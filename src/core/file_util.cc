#include "core/file_util.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <cstring>
#include <utility>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strings.h"

namespace gpufleet {

StatusOr<std::string> ReadFileToString(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return ErrnoError(path + ": cannot open", err);
  }
  // Regular files are read straight into a buffer of their size; pipes and
  // /proc files (size 0) grow it as they go.
  struct stat st;
  size_t hint = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0;
  std::string out;
  out.resize(std::max<size_t>(hint + 1, 1 << 16));
  size_t used = 0;
  while (true) {
    if (used == out.size()) out.resize(out.size() * 2);
    ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoError(path + ": read failed", err);
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  return out;
}

std::optional<std::string> ReadTrimmedFile(const std::string& path) {
  StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return std::nullopt;
  return std::string(TrimWhitespace(*text));
}

StatusOr<FileContents> FileContents::Open(const std::string& path) {
  FileContents f;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return ErrnoError(path + ": cannot open", err);
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    size_t size = static_cast<size_t>(st.st_size);
    // MAP_POPULATE maps every page up front: one fault storm in the kernel
    // instead of a fault per page while parsing.
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m != MAP_FAILED) {
      ::close(fd);
      f.map_ = m;
      f.map_size_ = size;
      f.view_ = std::string_view(static_cast<const char*>(m), size);
      return f;
    }
  }
  ::close(fd);
  ASSIGN_OR_RETURN(f.owned_, ReadFileToString(path));
  f.view_ = f.owned_;
  return f;
}

FileContents::FileContents(FileContents&& o) noexcept { *this = std::move(o); }

FileContents& FileContents::operator=(FileContents&& o) noexcept {
  if (this == &o) return *this;
  Release();
  map_ = std::exchange(o.map_, nullptr);
  map_size_ = std::exchange(o.map_size_, 0);
  owned_ = std::move(o.owned_);
  // A moved string may change its buffer (short strings live inline).
  view_ = map_ != nullptr ? o.view_ : std::string_view(owned_);
  o.view_ = {};
  return *this;
}

FileContents::~FileContents() { Release(); }

void FileContents::Release() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
}

namespace {

// Opens `path` for writing (truncating), writes `data` and flushes.
Status WriteWhole(const std::string& path, std::string_view data) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    const int err = errno;
    return ErrnoError(path + ": cannot create", err);
  }
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size() && std::fflush(f) == 0;
  const int err = errno;
  std::fclose(f);
  return ok ? OkStatus() : ErrnoError(path + ": write failed", err);
}

}  // namespace

Status WriteStringToFile(const std::string& path, std::string_view data) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    return WriteWhole(path, data);
  }
  const std::string tmp = path + ".tmp";
  RETURN_IF_ERROR(WriteWhole(tmp, data));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    return ErrnoError(path + ": rename failed", err);
  }
  return OkStatus();
}

StatusOr<ScratchDir> ScratchDir::Create(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" +
                        std::string(prefix) + ".XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return UnavailableError(pattern + ": cannot create a scratch directory: " +
                            std::strerror(errno));
  }
  return ScratchDir(pattern);
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace gpufleet
