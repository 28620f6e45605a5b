// Private to the Kineto JSON importer: Kineto's vocabulary (categories,
// kernel and runtime names, dtypes, device names) mapped onto the Timeline's
// (EventKind, collective op and size, Vendor). Pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/timeline.h"

namespace gpufleet::trace::kineto {

// Categories whose events run on a device queue (pid = device, tid = stream).
bool IsDeviceCategory(std::string_view cat);
// The kind of an event from its phase ('X', 'i', ...), category and name;
// device kernels by HTA's kernel type rules.
EventKind Classify(char ph, std::string_view cat, std::string_view name);
// "ncclKernel_AllReduce_RING_LL_Sum_float(...)" -> "AllReduce";
// "ncclDevKernel_AllGather_RING_LL(...)" -> "AllGather".
std::string_view OpFromKernelName(std::string_view name);
// Bytes per element of a collective's dtype ("float", "bfloat16", ...); -1
// when unknown.
int64_t DtypeBytes(std::string_view dtype);
// The vendor named in a deviceProperties name ("NVIDIA A100-SXM4-80GB").
Vendor VendorFromDeviceName(std::string_view n);

}  // namespace gpufleet::trace::kineto
