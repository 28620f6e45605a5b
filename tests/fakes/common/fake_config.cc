#include "fake_config.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace fake_common {

std::string Trim(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\r\n";
  size_t b = s.find_first_not_of(kBlanks);
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(kBlanks);
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> SplitList(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    std::string item = Trim(s.substr(pos, comma - pos));
    if (!item.empty()) out.push_back(std::move(item));
    pos = comma + 1;
  }
  return out;
}

void CopyString(char* dst, size_t size, const char* src) {
  if (size == 0) return;
  std::strncpy(dst, src, size - 1);
  dst[size - 1] = '\0';
}

bool ConfigFile::Reload() {
  const char* path = std::getenv(env_var_);
  if (path == nullptr || *path == '\0') return false;
  struct stat st {};
  if (::stat(path, &st) != 0) return false;
  if (loaded_ && path_ == path && st.st_mtim.tv_sec == mtime_.tv_sec &&
      st.st_mtim.tv_nsec == mtime_.tv_nsec && st.st_size == size_) {
    return false;
  }
  loaded_ = true;
  path_ = path;
  mtime_ = st.st_mtim;
  size_ = st.st_size;
  entries_.clear();
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    line.resize(std::min(line.size(), line.find('#')));
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string_view text(line);
    std::string key = Trim(text.substr(0, eq));
    if (!key.empty()) entries_.emplace_back(std::move(key), Trim(text.substr(eq + 1)));
  }
  return true;
}

const std::string* ConfigFile::Find(std::string_view key) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

long ConfigFile::Int(std::string_view key, long fallback) const {
  const std::string* value = Find(key);
  return value == nullptr ? fallback : std::strtol(value->c_str(), nullptr, 0);
}

bool ConfigFile::InList(std::string_view key, int index) const {
  const std::string* value = Find(key);
  if (value == nullptr) return false;
  for (const std::string& item : SplitList(*value)) {
    if (std::strtol(item.c_str(), nullptr, 10) == index) return true;
  }
  return false;
}

}  // namespace fake_common
