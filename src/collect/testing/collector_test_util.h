// Test-only helpers shared by the collector tests (never linked into
// gpufleet): driving a fake vendor library through its exported control
// functions, finding readings and samples, checking readings against the
// mapping tables, and the temporary files tests script fakes and sysfs trees
// with. Failures are reported through gtest.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collector.h"
#include "core/dynamic_library.h"
#include "core/labels.h"
#include "core/sample.h"
#include "core/status.h"

namespace gpufleet::testing {

// Keeps a fake vendor library loaded and calls its C control functions. It
// opens the same path the collector under test opens, so the dynamic loader
// hands both the same copy and they share the fake's state.
class FakeLibrary {
 public:
  // `prefix` is prepended to the names given to Bind/Call ("FakeAmdSmi_").
  explicit FakeLibrary(const std::string& path, std::string prefix = "");

  // The control function `prefix + name` with the signature Fn; nullptr and a
  // test failure when absent.
  template <typename Fn>
  Fn* Bind(std::string_view name) const {
    Fn* fn = nullptr;
    std::string full = prefix_ + std::string(name);
    if (lib_ == nullptr || !lib_->Bind(full.c_str(), fn)) {
      ADD_FAILURE() << "control function " << full << " missing";
      return nullptr;
    }
    return fn;
  }

  // The common control signatures; a missing function is a test failure.
  void Call(const char* fn) const;
  void Call(const char* fn, int a) const;
  void Call(const char* fn, int a, int b) const;
  // -1 when the function is missing.
  int CallInt(const char* fn) const;

 private:
  std::string prefix_;
  std::unique_ptr<DynamicLibrary> lib_;
};

// Calls a control function declared in a fake's control header with its own
// signature: FAKE_CALL(lib, fake_ze_advance_us)(1000). Missing: a fatal check.
#define FAKE_CALL(lib, fn) (*::gpufleet::testing::Required((lib).Bind<decltype(fn)>(#fn), #fn))

template <typename Fn>
Fn* Required(Fn* fn, const char* name) {
  // Calling through nullptr would crash less legibly.
  if (fn == nullptr) ::gpufleet::CheckFailed(__FILE__, __LINE__, name, "control function missing");
  return fn;
}

// The first reading named `name` whose labels include label=value (any
// labels when `label` is empty); nullptr when absent.
const RawReading* FindReading(const DeviceReadings& r, std::string_view name,
                              std::string_view label = "", std::string_view value = "");
// The first reading named `name` whose labels include all of `labels`.
const RawReading* FindReadingWith(const DeviceReadings& r, std::string_view name,
                                  const Labels& labels);
// The value of the first reading named `name`.
std::optional<double> ReadingValue(const DeviceReadings& r, std::string_view name);
// FindReading's value; a test failure and -1 when absent.
double ExpectReading(const DeviceReadings& r, std::string_view name, std::string_view label = "",
                     std::string_view value = "");
size_t CountReadings(const DeviceReadings& r, std::string_view name);
// field_errors[reason], 0 when absent.
uint64_t ErrorCount(const DeviceReadings& r, const std::string& reason);

// The first sample named `name` whose labels include all of `labels`.
const Sample* FindSample(const std::vector<Sample>& samples, std::string_view name,
                         const Labels& labels = {});

// Every reading in `all` has a mapping in the table of `source`
// (data/mappings/<source>.toml), so nothing is dropped as unmapped, and
// every name in `must_see` was read.
void ExpectAllMapped(std::string_view source, const std::vector<DeviceReadings>& all,
                     const std::set<std::string>& must_see = {});

// Discover()/Collect() that must succeed (a test failure otherwise; an empty
// result then).
std::vector<DeviceInfo> MustDiscover(Collector& c);
DeviceReadings MustCollect(Collector& c, size_t index);
// Every device's readings over two collection rounds (so rates appear), with
// `between` run after each round.
std::vector<DeviceReadings> CollectTwice(Collector& c, const std::function<void()>& between);

// A writable copy of the directory tree at `source` (a checked-in sysfs tree)
// under the test temp dir as `name`, replacing an earlier copy; returns its path.
std::string CopyTree(const std::string& source, const std::string& name);

// A fake's config file: a file `name` in the test temp dir whose path is put
// in the environment variable `env_var` for the object's lifetime; both the
// variable and the file are removed at destruction.
class ScopedConfigFile {
 public:
  ScopedConfigFile(const char* env_var, const std::string& name);
  ~ScopedConfigFile();
  ScopedConfigFile(const ScopedConfigFile&) = delete;
  ScopedConfigFile& operator=(const ScopedConfigFile&) = delete;

  // Replaces the file's contents and moves its mtime forward, so a fake that
  // watches it sees a change even on coarse-timestamp file systems.
  void Write(const std::string& text);
  const std::string& path() const { return path_; }

 private:
  const char* env_var_;
  std::string path_;
  std::optional<std::filesystem::file_time_type> last_mtime_;
};

}  // namespace gpufleet::testing
