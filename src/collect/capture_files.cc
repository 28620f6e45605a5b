#include "collect/capture_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace gpufleet::collect {

StatusOr<std::vector<std::string>> CaptureFiles(
    const std::string& path, const std::function<bool(std::string_view name)>& want) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return std::vector<std::string>{path};
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= 6) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && want(it->path().filename().string())) {
      files.push_back(it->path().string());
    }
  }
  if (ec) return ErrnoError(path + ": cannot list", ec.value());
  std::sort(files.begin(), files.end());
  return files;
}

std::optional<double> KernelShare::Mean(bool by_duration) const {
  if (kernels == 0) return std::nullopt;
  return by_duration && weight > 0 ? weighted / weight : sum / static_cast<double>(kernels);
}

}  // namespace gpufleet::collect
