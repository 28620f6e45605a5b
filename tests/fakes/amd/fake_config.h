// Shared by the fake AMD libraries: a `key = value` config file named by an
// environment variable, re-read whenever its mtime or size changes, so an
// end-to-end test can change a fake device's state while a real agent runs.
//
//   # comment
//   init_result = 34        # status the init call returns
//   device_count = 1        # physical GPUs listed (default 2)
//   lost = 0,1              # physical GPUs that answer "gone"
//   hang_ms.1 = 5000        # every call on GPU 1 sleeps this long
//   absurd.0 = 1            # GPU 0 reports an impossible temperature
//
// Header-only on purpose: each fake is its own shared library.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

namespace fake_amd {

class ConfigFile {
 public:
  explicit ConfigFile(const char* env_var) : env_var_(env_var) {}

  // Re-reads the file when it changed. Returns true and fills `values` when
  // the caller should re-apply them (first read, or a change). REQUIRES: the
  // caller serializes calls.
  bool Reload(std::map<std::string, std::string>& values) {
    const char* path = std::getenv(env_var_);
    if (path == nullptr || *path == '\0') return false;
    struct stat st {};
    if (::stat(path, &st) != 0) return false;
    if (loaded_ && st.st_mtim.tv_sec == mtime_.tv_sec && st.st_mtim.tv_nsec == mtime_.tv_nsec &&
        st.st_size == size_ && path_ == path) {
      return false;
    }
    loaded_ = true;
    mtime_ = st.st_mtim;
    size_ = st.st_size;
    path_ = path;
    values.clear();
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      size_t hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
      size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = Trim(line.substr(0, eq));
      std::string value = Trim(line.substr(eq + 1));
      if (!key.empty()) values[key] = value;
    }
    return true;
  }

  static std::string Trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
  }

  static long Int(const std::map<std::string, std::string>& values, const std::string& key,
                  long fallback) {
    auto it = values.find(key);
    if (it == values.end()) return fallback;
    return std::strtol(it->second.c_str(), nullptr, 0);
  }

  // True when `index` is in the comma-separated list under `key`.
  static bool InList(const std::map<std::string, std::string>& values, const std::string& key,
                     int index) {
    auto it = values.find(key);
    if (it == values.end()) return false;
    const std::string& list = it->second;
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t comma = list.find(',', pos);
      if (comma == std::string::npos) comma = list.size();
      std::string item = Trim(list.substr(pos, comma - pos));
      if (!item.empty() && std::strtol(item.c_str(), nullptr, 10) == index) return true;
      pos = comma + 1;
    }
    return false;
  }

 private:
  const char* env_var_;
  bool loaded_ = false;
  struct timespec mtime_ {};
  off_t size_ = 0;
  std::string path_;
};

}  // namespace fake_amd
