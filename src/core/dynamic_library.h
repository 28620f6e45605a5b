// DynamicLibrary: the one place gpufleet calls dlopen/dlsym. Vendor libraries
// (NVML, amd-smi, Level Zero, the CUDA/HIP stacks of `canary run`) are loaded
// at run time, never linked, so one binary runs on every node.
//
// Thread safety: Open/Symbol are thread-safe (dlopen is).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace gpufleet {

class DynamicLibrary {
 public:
  // Tries each name in order (e.g. {"libnvidia-ml.so.1", "libnvidia-ml.so"})
  // and returns the first that loads. NotFound lists every name and the
  // last dlerror().
  static StatusOr<std::unique_ptr<DynamicLibrary>> Open(const std::vector<std::string>& names);
  // Same, each name prefixed with `dir` + "/" when `dir` is not empty.
  static StatusOr<std::unique_ptr<DynamicLibrary>> OpenIn(const std::string& dir,
                                                          const std::vector<std::string>& names);
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
  template <typename Fn>
  bool Bind(const std::string& name, Fn*& fn) const {
    return Bind(name.c_str(), fn);
  }
  // Binds `fn`, or appends `name` to the comma-separated *missing.
  template <typename Fn>
  void Require(const std::string& name, Fn*& fn, std::string* missing) const {
    if (Bind(name, fn)) return;
    if (!missing->empty()) *missing += ", ";
    *missing += name;
  }

  // Leaves the library mapped when this object is destroyed. For runtimes
  // (CUDA, HIP) whose threads outlive an unload.
  void KeepLoadedAtDestruction() { close_on_destruction_ = false; }

  const std::string& path() const { return path_; }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
  bool close_on_destruction_ = true;
};

}  // namespace gpufleet
