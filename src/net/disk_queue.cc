#include "net/disk_queue.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/file_util.h"

namespace gpufleet {
namespace {

constexpr size_t kHeaderBytes = 8;
constexpr size_t kCursorBytes = 20;  // u64 segment, u64 offset, u32 CRC
constexpr std::string_view kSegmentSuffix = ".seg";
constexpr size_t kSegmentDigits = 20;

uint32_t Crc(const char* header_length, std::string_view payload) {
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(header_length), 4);
  // zlib takes uInt lengths; records are bounded by u32 so one call per 1 GiB chunk suffices.
  size_t done = 0;
  while (done < payload.size()) {
    size_t n = std::min<size_t>(payload.size() - done, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(payload.data() + done), static_cast<uInt>(n));
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

void PutU32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void PutU64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint32_t GetU32(const char* in) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}
uint64_t GetU64(const char* in) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

Status ErrnoError(const std::string& what, const std::string& path) {
  return InternalError(path + ": " + what + ": " + std::strerror(errno));
}

Status WriteAll(int fd, const char* data, size_t size, uint64_t offset, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", path);
    }
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return OkStatus();
}

Status ReadAll(int fd, char* data, size_t size, uint64_t offset, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("read", path);
    }
    if (n == 0) return DataLossError(path + ": unexpected end of file at offset " +
                                     std::to_string(offset));
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return OkStatus();
}

void SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// "00000000000000000042.seg" -> 42; nullopt for anything else in the directory.
std::optional<uint64_t> ParseSegmentName(const std::string& name) {
  if (name.size() != kSegmentDigits + kSegmentSuffix.size() ||
      !name.ends_with(kSegmentSuffix)) {
    return std::nullopt;
  }
  uint64_t id = 0;
  for (size_t i = 0; i < kSegmentDigits; ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (id > (std::numeric_limits<uint64_t>::max() - 9) / 10) return std::nullopt;
    id = id * 10 + static_cast<uint64_t>(c - '0');
  }
  return id;
}

}  // namespace

StatusOr<std::unique_ptr<DiskQueue>> DiskQueue::Open(const DiskQueueOptions& options) {
  if (options.dir.empty()) return InvalidArgumentError("disk queue: no directory given");
  if (options.max_bytes <= kHeaderBytes || options.segment_bytes == 0) {
    return InvalidArgumentError("disk queue: max_bytes and segment_bytes must be positive");
  }
  std::unique_ptr<DiskQueue> queue(new DiskQueue(options));
  RETURN_IF_ERROR(queue->Recover());
  return queue;
}

DiskQueue::~DiskQueue() {
  if (write_fd_ >= 0) {
    if (options_.sync == DiskQueueOptions::Sync::kEveryPush) ::fdatasync(write_fd_);
    ::close(write_fd_);
  }
  if (read_fd_ >= 0) ::close(read_fd_);
  if (cursor_fd_ >= 0) ::close(cursor_fd_);
}

std::string DiskQueue::SegmentPath(uint64_t segment) const {
  char name[kSegmentDigits + 8];
  std::snprintf(name, sizeof name, "%020llu.seg", static_cast<unsigned long long>(segment));
  return options_.dir + "/" + name;
}

Status DiskQueue::Recover() {
  std::error_code ec;
  std::filesystem::create_directories(options_.dir, ec);
  if (ec) return InternalError(options_.dir + ": cannot create: " + ec.message());
  for (const auto& entry : std::filesystem::directory_iterator(options_.dir, ec)) {
    if (auto id = ParseSegmentName(entry.path().filename().string())) segments_.insert(*id);
  }
  if (ec) return InternalError(options_.dir + ": cannot list: " + ec.message());

  const std::string cursor_path = options_.dir + "/cursor";
  cursor_fd_ = ::open(cursor_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (cursor_fd_ < 0) return ErrnoError("open", cursor_path);
  uint64_t cursor_segment = 0, cursor_offset = 0;
  char cursor[kCursorBytes];
  if (::pread(cursor_fd_, cursor, kCursorBytes, 0) == static_cast<ssize_t>(kCursorBytes) &&
      static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(cursor), 16)) ==
          GetU32(cursor + 16)) {
    cursor_segment = GetU64(cursor);
    cursor_offset = GetU64(cursor + 8);
  }  // else: no or torn cursor, so everything on disk is delivered again (at-least-once)

  // Segments wholly before the cursor were acknowledged before a crash.
  while (!segments_.empty() && *segments_.begin() < cursor_segment) {
    ::unlink(SegmentPath(*segments_.begin()).c_str());
    segments_.erase(segments_.begin());
  }
  for (auto it = segments_.begin(); it != segments_.end(); ++it) {
    RETURN_IF_ERROR(ScanSegment(*it, std::next(it) == segments_.end(), cursor_segment,
                                cursor_offset));
  }

  uint64_t last = std::max(cursor_segment, segments_.empty() ? 0 : *segments_.rbegin());
  if (!segments_.empty() && *segments_.rbegin() == last && write_offset_ < options_.segment_bytes) {
    RETURN_IF_ERROR(OpenWriteSegment(last, write_offset_));
  } else {
    RETURN_IF_ERROR(OpenWriteSegment(last + 1, 0));
  }
  // A smaller bound than last time applies at once.
  while (stats_.bytes > options_.max_bytes && !entries_.empty()) DropFront();
  return OkStatus();
}

Status DiskQueue::ScanSegment(uint64_t segment, bool is_last, uint64_t cursor_segment,
                              uint64_t cursor_offset) {
  const std::string path = SegmentPath(segment);
  ASSIGN_OR_RETURN(std::string data, ReadFileToString(path));
  size_t pos = 0;
  while (pos < data.size()) {
    if (data.size() - pos < kHeaderBytes) {
      ++stats_.corrupt_records;  // torn header
      break;
    }
    uint32_t size = GetU32(&data[pos]);
    if (size > data.size() - pos - kHeaderBytes ||
        Crc(&data[pos], std::string_view(data).substr(pos + kHeaderBytes, size)) !=
            GetU32(&data[pos + 4])) {
      ++stats_.corrupt_records;  // torn or corrupt: nothing after it can be framed
      break;
    }
    if (segment > cursor_segment || pos >= cursor_offset) {
      entries_.push_back(Entry{next_id_++, segment, pos, size});
      ++stats_.records;
      stats_.bytes += kHeaderBytes + size;
    }
    pos += kHeaderBytes + size;
  }
  if (is_last) {
    if (pos < data.size() && ::truncate(path.c_str(), static_cast<off_t>(pos)) != 0) {
      return ErrnoError("truncate torn record", path);
    }
    write_offset_ = pos;
  }
  return OkStatus();
}

Status DiskQueue::OpenWriteSegment(uint64_t segment, uint64_t offset) {
  if (write_fd_ >= 0) {
    if (options_.sync == DiskQueueOptions::Sync::kEveryPush) ::fdatasync(write_fd_);
    ::close(write_fd_);
    write_fd_ = -1;
  }
  const std::string path = SegmentPath(segment);
  write_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (write_fd_ < 0) return ErrnoError("open", path);
  if (segments_.insert(segment).second && options_.sync == DiskQueueOptions::Sync::kEveryPush) {
    SyncDir(options_.dir);
  }
  write_segment_ = segment;
  write_offset_ = offset;
  return OkStatus();
}

Status DiskQueue::Push(std::string_view payload) {
  const uint64_t need = kHeaderBytes + payload.size();
  std::lock_guard<std::mutex> lock(mu_);
  if (payload.size() > std::numeric_limits<uint32_t>::max() || need > options_.max_bytes) {
    ++stats_.rejected_records;
    return OutOfRangeError("disk queue: record of " + std::to_string(payload.size()) +
                           " bytes exceeds the queue bound of " +
                           std::to_string(options_.max_bytes));
  }
  while (stats_.bytes + need > options_.max_bytes && !entries_.empty()) DropFront();
  if (write_offset_ > 0 && write_offset_ + need > options_.segment_bytes) {
    RETURN_IF_ERROR(OpenWriteSegment(write_segment_ + 1, 0));
  }
  char header[kHeaderBytes];
  PutU32(header, static_cast<uint32_t>(payload.size()));
  PutU32(header + 4, Crc(header, payload));
  const std::string path = SegmentPath(write_segment_);
  Status st = WriteAll(write_fd_, header, kHeaderBytes, write_offset_, path);
  if (st.ok()) {
    st = WriteAll(write_fd_, payload.data(), payload.size(), write_offset_ + kHeaderBytes, path);
  }
  if (st.ok() && options_.sync == DiskQueueOptions::Sync::kEveryPush &&
      ::fdatasync(write_fd_) != 0) {
    st = ErrnoError("fdatasync", path);
  }
  if (!st.ok()) {
    // Cut the partial record so the next append starts on a record boundary.
    if (::ftruncate(write_fd_, static_cast<off_t>(write_offset_)) != 0) {
      return st.WithContext("and the partial record could not be cut");
    }
    return st;
  }
  entries_.push_back(Entry{next_id_++, write_segment_, write_offset_,
                           static_cast<uint32_t>(payload.size())});
  write_offset_ += need;
  ++stats_.records;
  stats_.bytes += need;
  cv_.notify_all();
  return OkStatus();
}

StatusOr<std::optional<QueuedRecord>> DiskQueue::Peek() {
  std::lock_guard<std::mutex> lock(mu_);
  while (!entries_.empty()) {
    const Entry& e = entries_.front();
    const std::string path = SegmentPath(e.segment);
    if (read_fd_ < 0 || read_fd_segment_ != e.segment) {
      if (read_fd_ >= 0) ::close(read_fd_);
      read_fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (read_fd_ < 0) return ErrnoError("open", path);
      read_fd_segment_ = e.segment;
    }
    QueuedRecord record;
    record.id = e.id;
    record.payload.resize(kHeaderBytes + e.size);
    RETURN_IF_ERROR(ReadAll(read_fd_, record.payload.data(), record.payload.size(), e.offset, path));
    std::string_view payload = std::string_view(record.payload).substr(kHeaderBytes);
    if (Crc(record.payload.data(), payload) == GetU32(record.payload.data() + 4)) {
      record.payload.erase(0, kHeaderBytes);
      return std::optional<QueuedRecord>(std::move(record));
    }
    // Damaged on disk since it was written: count it and move on rather than wedge.
    ++stats_.corrupt_records;
    --stats_.records;
    stats_.bytes -= kHeaderBytes + e.size;
    entries_.pop_front();
    AdvanceHead();
  }
  return std::optional<QueuedRecord>();
}

Status DiskQueue::Pop(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.empty() || entries_.front().id != id) return OkStatus();
  const Entry& e = entries_.front();
  --stats_.records;
  stats_.bytes -= kHeaderBytes + e.size;
  entries_.pop_front();
  AdvanceHead();
  return OkStatus();
}

void DiskQueue::DropFront() {
  const Entry& e = entries_.front();
  ++stats_.dropped_records;
  stats_.dropped_bytes += kHeaderBytes + e.size;
  --stats_.records;
  stats_.bytes -= kHeaderBytes + e.size;
  entries_.pop_front();
  AdvanceHead();
}

void DiskQueue::AdvanceHead() {
  uint64_t segment = entries_.empty() ? write_segment_ : entries_.front().segment;
  uint64_t offset = entries_.empty() ? write_offset_ : entries_.front().offset;
  char cursor[kCursorBytes];
  PutU64(cursor, segment);
  PutU64(cursor + 8, offset);
  PutU32(cursor + 16, static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(cursor), 16)));
  // Best effort by design (see the header): a lost cursor means redelivery, not loss.
  (void)WriteAll(cursor_fd_, cursor, kCursorBytes, 0, options_.dir + "/cursor");

  bool removed = false;
  while (!segments_.empty() && *segments_.begin() < segment) {
    uint64_t old = *segments_.begin();
    if (read_fd_ >= 0 && read_fd_segment_ == old) {
      ::close(read_fd_);
      read_fd_ = -1;
    }
    ::unlink(SegmentPath(old).c_str());
    segments_.erase(segments_.begin());
    removed = true;
  }
  if (removed && options_.sync == DiskQueueOptions::Sync::kEveryPush) SyncDir(options_.dir);
}

bool DiskQueue::WaitForRecord(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return !entries_.empty() || interrupted_; });
  return !entries_.empty();
}

void DiskQueue::Interrupt() {
  std::lock_guard<std::mutex> lock(mu_);
  interrupted_ = true;
  cv_.notify_all();
}

DiskQueueStats DiskQueue::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace gpufleet
