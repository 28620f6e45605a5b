// Names and ids of the Nsight Systems SQLite export that the importer
// decodes (private to src/trace): serialized globalTid/globalPid, API version
// suffixes, CUDA copy kinds and synchronization types. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpufleet::trace {

// globalTid / globalPid packing (NVIDIA "serialized process and thread
// identifiers"): PID in bits 24..47, TID in bits 0..23.
inline int64_t PidOf(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
inline int64_t TidOf(int64_t global_tid) { return global_tid & 0xFFFFFF; }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the suffix is the API
// version, not part of the call's identity.
std::string_view StripApiVersion(std::string_view name);

// ENUM_CUDA_MEMCPY_OPER id -> "Memcpy HtoD" ... ("Memcpy" when unknown): the
// built-in table for exports without ENUM tables (schema 2.x).
std::string_view CopyKindName(int64_t kind);

// ENUM_CUDA_MEMCPY_OPER.name ("CUDA_MEMCPY_KIND_HTOD") -> "Memcpy HtoD";
// empty when the suffix is not an X-to-Y direction.
std::string CopyKindFromEnumName(std::string_view name);

// ENUM_CUPTI_SYNC_TYPE id -> "Sync: stream synchronize" ... ("Sync" when unknown).
std::string_view SyncTypeName(int64_t type);

// NCCL/RCCL kernels ("nccl...", "rccl...").
bool IsCommKernelName(std::string_view name);

}  // namespace gpufleet::trace
