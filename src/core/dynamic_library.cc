#include "core/dynamic_library.h"

#include <dlfcn.h>

namespace gpufleet {

StatusOr<std::unique_ptr<DynamicLibrary>> DynamicLibrary::Open(
    const std::vector<std::string>& names) {
  std::string tried;
  std::string last_error;
  for (const std::string& name : names) {
    void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h != nullptr) return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(h, name));
    const char* err = ::dlerror();
    last_error = err != nullptr ? err : "unknown dlopen error";
    if (!tried.empty()) tried += ", ";
    tried += name;
  }
  return NotFoundError("cannot load any of [" + tried + "]: " + last_error);
}

StatusOr<std::unique_ptr<DynamicLibrary>> DynamicLibrary::OpenIn(
    const std::string& dir, const std::vector<std::string>& names) {
  if (dir.empty()) return Open(names);
  std::vector<std::string> paths;
  paths.reserve(names.size());
  for (const std::string& n : names) paths.push_back(dir + "/" + n);
  return Open(paths);
}

DynamicLibrary::~DynamicLibrary() {
  // Vendor libraries may keep threads alive; unloading them at exit is
  // riskier than leaving them mapped. Close only on explicit destruction.
  if (handle_ != nullptr && close_on_destruction_) ::dlclose(handle_);
}

void* DynamicLibrary::Symbol(const char* name) const { return ::dlsym(handle_, name); }

}  // namespace gpufleet
