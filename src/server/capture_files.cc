#include "server/capture_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "server/capture_runner.h"

namespace gpufleet {

std::vector<CaptureFile> ListCaptureFiles(const std::string& output_dir,
                                          const std::string& capture_path) {
  namespace fs = std::filesystem;
  std::vector<CaptureFile> out;
  if (output_dir.empty() || capture_path.empty()) return out;
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(output_dir, ec);
  if (ec) return out;
  const fs::path capture = fs::weakly_canonical(capture_path, ec);
  if (ec || capture.parent_path() != dir) return out;
  const std::string base = capture.filename().string();
  if (base.empty() || base == "." || base == "..") return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != base && !name.starts_with(base + ".")) continue;
    if (!IsSafeCaptureValue(name)) continue;  // it goes into a header and a URL
    // symlink_status: a link is not followed, so it cannot lead elsewhere.
    std::error_code fe;
    if (!fs::is_regular_file(it->symlink_status(fe)) || fe) continue;
    const uintmax_t bytes = it->file_size(fe);
    if (fe) continue;
    out.push_back({name, static_cast<uint64_t>(bytes)});
  }
  std::sort(out.begin(), out.end(),
            [](const CaptureFile& a, const CaptureFile& b) { return a.name < b.name; });
  return out;
}

}  // namespace gpufleet
