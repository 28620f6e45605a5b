#include "collect/testing/collector_test_util.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "normalize/mapping_table.h"

namespace gpufleet::testing {

namespace fs = std::filesystem;

namespace {

bool HasLabels(const Labels& have, const Labels& want) {
  for (const auto& [k, v] : want.pairs()) {
    if (have.Get(k) != v) return false;
  }
  return true;
}

}  // namespace

FakeLibrary::FakeLibrary(const std::string& path, std::string prefix) : prefix_(std::move(prefix)) {
  auto lib = DynamicLibrary::Open({path});
  EXPECT_TRUE(lib.ok()) << lib.status().ToString();
  if (lib.ok()) lib_ = std::move(lib).value();
}

void FakeLibrary::Call(const char* fn) const {
  if (auto* f = Bind<void()>(fn)) f();
}

void FakeLibrary::Call(const char* fn, int a) const {
  if (auto* f = Bind<void(int)>(fn)) f(a);
}

void FakeLibrary::Call(const char* fn, int a, int b) const {
  if (auto* f = Bind<void(int, int)>(fn)) f(a, b);
}

int FakeLibrary::CallInt(const char* fn) const {
  auto* f = Bind<int()>(fn);
  return f != nullptr ? f() : -1;
}

const RawReading* FindReading(const DeviceReadings& r, std::string_view name,
                              std::string_view label, std::string_view value) {
  for (const RawReading& x : r.readings) {
    if (x.name != name) continue;
    if (!label.empty() && x.labels.Get(label) != value) continue;
    return &x;
  }
  return nullptr;
}

const RawReading* FindReadingWith(const DeviceReadings& r, std::string_view name,
                                  const Labels& labels) {
  for (const RawReading& x : r.readings) {
    if (x.name == name && HasLabels(x.labels, labels)) return &x;
  }
  return nullptr;
}

std::optional<double> ReadingValue(const DeviceReadings& r, std::string_view name) {
  const RawReading* x = FindReading(r, name);
  return x != nullptr ? std::optional<double>(x->value) : std::nullopt;
}

double ExpectReading(const DeviceReadings& r, std::string_view name, std::string_view label,
                     std::string_view value) {
  const RawReading* x = FindReading(r, name, label, value);
  EXPECT_NE(x, nullptr) << name << " " << label << "=" << value;
  return x != nullptr ? x->value : -1.0;
}

size_t CountReadings(const DeviceReadings& r, std::string_view name) {
  size_t n = 0;
  for (const RawReading& x : r.readings) n += x.name == name ? 1 : 0;
  return n;
}

uint64_t ErrorCount(const DeviceReadings& r, const std::string& reason) {
  auto it = r.field_errors.find(reason);
  return it == r.field_errors.end() ? 0 : it->second;
}

const Sample* FindSample(const std::vector<Sample>& samples, std::string_view name,
                         const Labels& labels) {
  for (const Sample& s : samples) {
    if (s.name == name && HasLabels(s.labels, labels)) return &s;
  }
  return nullptr;
}

void ExpectAllMapped(std::string_view source, const std::vector<DeviceReadings>& all,
                     const std::set<std::string>& must_see) {
  auto table = MappingTable::ForSource(source);
  ASSERT_TRUE(table.ok()) << source << ": " << table.status().ToString();
  std::set<std::string> seen;
  for (const DeviceReadings& d : all) {
    for (const RawReading& r : d.readings) {
      seen.insert(r.name);
      EXPECT_NE(table->FindMatching(r.name, r.labels), nullptr)
          << source << ": reading '" << r.name << "' " << r.labels.ToString() << " unmapped";
    }
  }
  for (const std::string& name : must_see) EXPECT_EQ(seen.count(name), 1u) << name;
}

std::vector<DeviceInfo> MustDiscover(Collector& c) {
  auto devices = c.Discover();
  EXPECT_TRUE(devices.ok()) << devices.status().ToString();
  return devices.ok() ? *devices : std::vector<DeviceInfo>{};
}

DeviceReadings MustCollect(Collector& c, size_t index) {
  DeviceReadings r;
  Status st = c.Collect(index, r);
  EXPECT_TRUE(st.ok()) << "device " << index << ": " << st.ToString();
  return r;
}

std::vector<DeviceReadings> CollectTwice(Collector& c, const std::function<void()>& between) {
  size_t devices = MustDiscover(c).size();
  std::vector<DeviceReadings> out;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < devices; ++i) out.push_back(MustCollect(c, i));
    between();
  }
  return out;
}

std::string CopyTree(const std::string& source, const std::string& name) {
  fs::path dst = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dst);
  fs::copy(source, dst, fs::copy_options::recursive);
  return dst.string();
}

ScopedConfigFile::ScopedConfigFile(const char* env_var, const std::string& name)
    : env_var_(env_var), path_((fs::path(::testing::TempDir()) / name).string()) {
  EXPECT_EQ(::setenv(env_var_, path_.c_str(), 1), 0);
}

ScopedConfigFile::~ScopedConfigFile() {
  ::unsetenv(env_var_);
  std::remove(path_.c_str());
}

void ScopedConfigFile::Write(const std::string& text) {
  {
    std::ofstream out(path_, std::ios::trunc);
    out << text;
  }
  std::error_code ec;
  fs::file_time_type mtime = fs::last_write_time(path_, ec);
  if (last_mtime_.has_value() && mtime <= *last_mtime_) {
    mtime = *last_mtime_ + std::chrono::seconds(1);
    fs::last_write_time(path_, mtime, ec);
  }
  EXPECT_FALSE(ec) << path_ << ": " << ec.message();
  last_mtime_ = mtime;
}

}  // namespace gpufleet::testing
