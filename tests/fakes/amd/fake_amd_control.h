// Test-side helpers for the fake AMD libraries: resolve a fake's control
// functions (the same loaded copy the collector under test uses, since both
// open the same path) and look up readings.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "collect/collector.h"
#include "collect/dynamic_library.h"

namespace gpufleet::fake_amd {

// Keeps the fake loaded and calls its exported C control functions.
class FakeControl {
 public:
  FakeControl(const std::string& path, const std::string& prefix) : prefix_(prefix) {
    auto lib = DynamicLibrary::Open({path});
    EXPECT_TRUE(lib.ok()) << lib.status().ToString();
    if (lib.ok()) lib_ = std::move(*lib);
  }

  void Call(const char* fn) {
    if (auto* f = Get<void()>(fn)) f();
  }
  void Call(const char* fn, int a) {
    if (auto* f = Get<void(int)>(fn)) f(a);
  }
  void Call(const char* fn, int a, int b) {
    if (auto* f = Get<void(int, int)>(fn)) f(a, b);
  }
  int CallInt(const char* fn) {
    auto* f = Get<int()>(fn);
    return f != nullptr ? f() : -1;
  }

 private:
  template <typename Fn>
  Fn* Get(const char* fn) {
    Fn* f = nullptr;
    std::string name = prefix_ + fn;
    if (lib_ == nullptr || !lib_->Bind(name.c_str(), f)) {
      ADD_FAILURE() << "control function " << name << " missing";
      return nullptr;
    }
    return f;
  }

  std::string prefix_;
  std::unique_ptr<DynamicLibrary> lib_;
};

// First reading named `name` whose labels include label=value (any when
// label is empty); nullptr when absent.
inline const RawReading* FindReading(const DeviceReadings& r, const std::string& name,
                                     const std::string& label = "", const std::string& value = "") {
  for (const RawReading& x : r.readings) {
    if (x.name != name) continue;
    if (!label.empty() && x.labels.Get(label) != value) continue;
    return &x;
  }
  return nullptr;
}

inline size_t CountReadings(const DeviceReadings& r, const std::string& name) {
  size_t n = 0;
  for (const RawReading& x : r.readings) n += x.name == name ? 1 : 0;
  return n;
}

inline uint64_t ErrorCount(const DeviceReadings& r, const std::string& reason) {
  auto it = r.field_errors.find(reason);
  return it == r.field_errors.end() ? 0 : it->second;
}

}  // namespace gpufleet::fake_amd
