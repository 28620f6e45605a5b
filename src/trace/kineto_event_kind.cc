#include "trace/kineto_event_kind.h"

#include <cctype>
#include <string>

#include "core/strings.h"

namespace gpufleet::trace::kineto {
namespace {

// HTA's kernel type regexes (hta/common/types.py): MEMORY
// `^(hip)?Memcpy|^(hip)?Memset|^dma`, COMMUNICATION
// `^nccl|^hip|^hccl|ncclKernel`, else COMPUTATION. Memory is tested first so
// "hipMemcpy..." device ops stay copies.
EventKind KernelKind(std::string_view name) {
  if (StartsWith(name, "Memcpy") || StartsWith(name, "hipMemcpy")) return EventKind::kMemcpy;
  if (StartsWith(name, "Memset") || StartsWith(name, "hipMemset")) return EventKind::kMemset;
  if (StartsWith(name, "dma")) return EventKind::kMemcpy;
  if (StartsWith(name, "nccl") || StartsWith(name, "hip") || StartsWith(name, "hccl") ||
      StartsWith(name, "rccl") || name.find("ncclKernel") != std::string_view::npos ||
      name.find("ncclDevKernel") != std::string_view::npos) {
    return EventKind::kCommKernel;
  }
  return EventKind::kKernel;
}

}  // namespace

bool IsDeviceCategory(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" ||
         cat == "gpu_user_annotation" || cat == "Kernel" || cat == "Memcpy" || cat == "Memset";
}

EventKind Classify(char ph, std::string_view cat, std::string_view name) {
  if (ph == 'i' || ph == 'I' || ph == 'R') return EventKind::kInstant;
  if (EqualsIgnoreCase(cat, "kernel")) return KernelKind(name);
  if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return EventKind::kMemset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "xpu_runtime" ||
      cat == "xpu_driver" || cat == "privateuse1_runtime" || cat == "privateuse1_driver" ||
      cat == "mtia_runtime") {
    return name.find("Synchronize") != std::string_view::npos ? EventKind::kSync
                                                               : EventKind::kRuntime;
  }
  if (cat == "cuda_sync" || cat == "xpu_sync") return EventKind::kSync;
  if (cat == "cpu_op" || cat == "Operator") return EventKind::kCpuOp;
  if (cat == "user_annotation" || cat == "gpu_user_annotation" || cat == "Trace" ||
      StartsWith(name, "ProfilerStep#")) {
    return EventKind::kAnnotation;
  }
  return EventKind::kOther;
}

std::string_view OpFromKernelName(std::string_view name) {
  size_t u = name.find('_');
  if (u == std::string_view::npos) return name.substr(0, name.find('('));
  size_t end = name.find_first_of("_(", u + 1);
  return name.substr(u + 1, end == std::string_view::npos ? std::string_view::npos : end - u - 1);
}

int64_t DtypeBytes(std::string_view dtype) {
  std::string d;
  for (char c : dtype) d.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (d == "float" || d == "float32" || d == "int" || d == "int32" || d == "uint32") return 4;
  if (d == "double" || d == "float64" || d == "long" || d == "int64" || d == "uint64") return 8;
  if (d == "half" || d == "float16" || d == "bfloat16" || d == "short" || d == "int16") return 2;
  if (d == "byte" || d == "char" || d == "bool" || d == "int8" || d == "uint8" ||
      d.find("float8") != std::string::npos) {
    return 1;
  }
  return -1;
}

Vendor VendorFromDeviceName(std::string_view n) {
  auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
  if (has("NVIDIA") || has("Tesla") || has("GeForce") || has("Quadro")) return Vendor::kNvidia;
  if (has("AMD") || has("Radeon") || has("Instinct")) return Vendor::kAmd;
  if (has("Intel")) return Vendor::kIntel;
  return Vendor::kUnknown;
}

}  // namespace gpufleet::trace::kineto
