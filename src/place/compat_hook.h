// The placement engine's software check backed by the compatibility catalog
// (compat/compat_check.h), so `place` and `gpufleet compat check` judge a
// stack by the same rules.
//
// Node software keys (NodeSpec::software): driver, driver_kernel_module, cuda,
// fabric_manager, nccl, rocm, rocm_kmd, amdgpu_driver, rccl, os, kernel, and
// nvswitch ("true"/"false"). Workload keys (WorkloadRequest::software) are
// minimums: driver, cuda, rocm, nccl, rccl, compute_capability; any other key
// must be present on the node with exactly the same value. A value that is not
// a version is a rejection naming the key and the value.
//
// Thread safety: the hook is stateless apart from the catalog it reads.
#pragma once

#include "compat/compat_catalog.h"
#include "place/feasibility.h"

namespace gpufleet::place {

// The hook returns the first error finding's message ("rule: message"), or
// std::nullopt when the catalog finds no error. `catalog` must outlive it.
SoftwareCompatHook CatalogCompatHook(const CompatCatalog& catalog = CompatCatalog::Default());

}  // namespace gpufleet::place
