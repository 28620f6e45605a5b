// DynamicLibrary: the one place gpufleet calls dlopen/dlsym. Vendor libraries
// are loaded at run time, never linked, so one binary runs on every node.
//
// Thread safety: Open/Symbol are thread-safe (dlopen is).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpufleet {

class DynamicLibrary {
 public:
  // Tries each name in order (e.g. {"libnvidia-ml.so.1", "libnvidia-ml.so"})
  // and returns the first that loads. NotFound lists every name and the
  // last dlerror().
  static StatusOr<std::unique_ptr<DynamicLibrary>> Open(const std::vector<std::string>& names);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // nullptr when the symbol is absent (callers treat that as "unsupported",
  // not as a failure of the whole library).
  void* Symbol(const char* name) const;

  // Loads `name` into *fn; false when absent.
  template <typename Fn>
  bool Bind(const char* name, Fn*& fn) const {
    fn = reinterpret_cast<Fn*>(Symbol(name));
    return fn != nullptr;
  }

  const std::string& path() const { return path_; }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

}  // namespace gpufleet
