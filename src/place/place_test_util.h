// Small builders for placement tests (policy_test.cc, gpufleet_policy_test.cc):
// nodes of one GPU model "A" with ample memory, requests and target shapes.
// Test-only; not part of gpufleet_place.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "place/fragmentation.h"
#include "place/model.h"

namespace gpufleet::place::test_util {

// A node named `name` with `gpus` GPUs of model "A", `cpu` milli-CPU and
// 1 TiB (1 << 20 MiB) of memory, so that memory never binds.
inline NodeSpec Node(std::string name, int gpus, int64_t cpu = 64000) {
  NodeSpec n;
  n.name = std::move(name);
  n.cpu_milli = cpu;
  n.memory_mib = 1 << 20;
  n.gpu_count = gpus;
  n.gpu_model = "A";
  return n;
}

// A request for `cpu` milli-CPU and `gpus` GPUs of `milli` each (a share
// when gpus is 1 and milli < 1000), no memory.
inline WorkloadRequest Req(int64_t cpu, int gpus, int64_t milli) {
  WorkloadRequest r;
  r.cpu_milli = cpu;
  r.gpu_count = gpus;
  r.gpu_milli = milli;
  return r;
}

// A target shape with weight `w` (any GPU model).
inline TypicalShape Shape(int64_t cpu, int64_t milli, int count, double w, int64_t mem = 0) {
  TypicalShape s;
  s.cpu_milli = cpu;
  s.gpu_milli = milli;
  s.gpu_count = count;
  s.weight = w;
  s.memory_mib = mem;
  return s;
}

}  // namespace gpufleet::place::test_util
