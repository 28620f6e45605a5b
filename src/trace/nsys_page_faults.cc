// A row this reads (CUDA_UM_GPU_PAGE_FAULT_EVENTS, schema as nsys 2022.2
// declares it; values illustrative):
//   start=924922186 end=924931410 globalPid=302119223558144 deviceId=0
//   address=140031234031616 numberOfPageFaults=12 faultAccessType=1
#include "trace/nsys_page_faults.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "core/strings.h"
#include "trace/sqlite_reader.h"

namespace gpufleet::trace {
namespace {

constexpr char kFaultTable[] = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";

// "GPU-74E128B2-..." and "74e128b2-..." name one device.
std::string UuidKey(std::string_view uuid) {
  if (uuid.size() >= 4 && (uuid.substr(0, 4) == "GPU-" || uuid.substr(0, 4) == "gpu-")) {
    uuid.remove_prefix(4);
  }
  return ToLower(uuid);
}

StatusOr<double> SessionSeconds(const SqliteReader& db) {
  if (!db.HasTable("ANALYSIS_DETAILS")) {
    return InvalidArgumentError(db.path() +
                                ": no ANALYSIS_DETAILS table, so no session length to "
                                "divide the page faults by");
  }
  ASSIGN_OR_RETURN(auto rows, db.Select("ANALYSIS_DETAILS", {"duration"}, {"duration"}));
  int64_t ns = 0;
  while (rows.Next()) {
    if (!rows.IsNull(0)) ns = std::max(ns, rows.Int(0));
  }
  RETURN_IF_ERROR(rows.status());
  if (ns <= 0) {
    return InvalidArgumentError(db.path() + ": ANALYSIS_DETAILS.duration is not a positive length");
  }
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace

std::optional<double> NsysPageFaults::FaultsPerSecond(std::string_view gpu_uuid) const {
  if (!traced || duration_s <= 0) return std::nullopt;
  const NsysDeviceFaults* found = nullptr;
  if (gpu_uuid.empty()) {
    if (devices.size() == 1) found = &devices[0];
  } else {
    const std::string key = UuidKey(gpu_uuid);
    for (const NsysDeviceFaults& d : devices) {
      if (!d.uuid.empty() && UuidKey(d.uuid) == key) found = &d;
    }
  }
  if (found == nullptr) return std::nullopt;
  return static_cast<double>(found->faults) / duration_s;
}

StatusOr<NsysPageFaults> ReadNsysPageFaults(const std::string& path) {
  StatusOr<SqliteReader> opened = SqliteReader::Open(path);
  if (!opened.ok()) {
    return InvalidArgumentError(path + ": not an Nsight Systems SQLite export (" +
                                opened.status().message() + ")");
  }
  const SqliteReader& db = *opened;
  const bool schema3 = db.HasTable("META_DATA_EXPORT");
  if (!schema3 && !db.HasTable("EXPORT_META_DATA")) {
    return InvalidArgumentError(path +
                                ": not an Nsight Systems SQLite export (no META_DATA_EXPORT or "
                                "EXPORT_META_DATA table)");
  }
  if (!db.HasTable(kFaultTable)) {
    return NotFoundError(path + ": no " + std::string(kFaultTable) +
                         " table: GPU page faults were not traced (nsys profile "
                         "--cuda-um-gpu-page-faults=true)");
  }
  NsysPageFaults out;
  out.path = path;
  ASSIGN_OR_RETURN(out.duration_s, SessionSeconds(db));

  // The GPUs the export lists, in id order; their uuids name them.
  std::map<int64_t, NsysDeviceFaults> by_id;
  for (const char* gpus : {"TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE"}) {
    if (!by_id.empty() || !db.HasTable(gpus)) continue;
    const bool has_id = db.Columns(gpus).count("id") > 0;
    ASSIGN_OR_RETURN(auto rows, db.Select(gpus, {has_id ? "id" : "cuDevice", "uuid"}, {}));
    while (rows.Next()) {
      if (rows.IsNull(0)) continue;
      NsysDeviceFaults& d = by_id[rows.Int(0)];
      d.device_id = rows.Int(0);
      if (!rows.IsNull(1)) d.uuid = std::string(rows.Text(1));
    }
    RETURN_IF_ERROR(rows.status());
  }

  ASSIGN_OR_RETURN(auto rows, db.Select(kFaultTable, {"deviceId", "numberOfPageFaults"},
                                        {"deviceId", "numberOfPageFaults"}));
  int64_t row = 0;
  while (rows.Next()) {
    ++row;
    const char* why = nullptr;
    if (rows.IsNull(0) || rows.IsNull(1)) {
      why = "deviceId or numberOfPageFaults is NULL";
    } else if (rows.Int(1) < 0) {
      why = "numberOfPageFaults is negative";
    }
    if (why != nullptr) {
      if (out.bad_rows++ == 0) {
        out.first_bad = path + ": " + kFaultTable + " row " + std::to_string(row) + ": " + why;
      }
      continue;
    }
    ++out.rows;
    NsysDeviceFaults& d = by_id[rows.Int(0)];
    d.device_id = rows.Int(0);
    // Saturating: a corrupt count must not wrap the total negative.
    const int64_t n = rows.Int(1);
    d.faults = n > INT64_MAX - d.faults ? INT64_MAX : d.faults + n;
  }
  RETURN_IF_ERROR(rows.status());
  out.traced = schema3 || out.rows > 0;
  for (auto& [id, d] : by_id) out.devices.push_back(std::move(d));
  return out;
}

}  // namespace gpufleet::trace
