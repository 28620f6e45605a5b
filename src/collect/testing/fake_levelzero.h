// The fake Level Zero loader (tests/fakes/levelzero/) as the Intel collector
// tests drive it. Only for test binaries that put tests/ on the include path
// and are built with the Level Zero header (GPUFLEET_HAVE_LEVEL_ZERO).
#pragma once

#include <string>

#include "collect/testing/collector_test_util.h"
#include "fakes/levelzero/fake_ze_control.h"

namespace gpufleet::testing {

// The fake's control functions, bound from the same file the collector
// loads (so both share its state); the fake is reset at construction.
struct FakeLevelZero {
  // `dir`: the build directory of one fake variant (full or partial).
  explicit FakeLevelZero(const std::string& dir) : path(dir + "/libze_loader.so.1"), lib(path) {
    reset();
  }

  std::string path;  // what a collector under test should load
  FakeLibrary lib;
  decltype(&fake_ze_reset) reset = &FAKE_CALL(lib, fake_ze_reset);
  decltype(&fake_ze_set_init_result) set_init_result = &FAKE_CALL(lib, fake_ze_set_init_result);
  decltype(&fake_ze_set_device_lost) set_device_lost = &FAKE_CALL(lib, fake_ze_set_device_lost);
  decltype(&fake_ze_set_hang_ms) set_hang_ms = &FAKE_CALL(lib, fake_ze_set_hang_ms);
  decltype(&fake_ze_set_kind_result) set_kind_result = &FAKE_CALL(lib, fake_ze_set_kind_result);
  decltype(&fake_ze_advance_us) advance_us = &FAKE_CALL(lib, fake_ze_advance_us);
};

}  // namespace gpufleet::testing
