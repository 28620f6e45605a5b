// See nsys_names.h.
#include "trace/nsys_names.h"

#include <cctype>

namespace gpufleet::trace {

std::string_view StripApiVersion(std::string_view name) {
  size_t pos = name.rfind("_v");
  if (pos == std::string_view::npos || pos + 2 >= name.size()) return name;
  for (size_t i = pos + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, pos);
}

std::string_view CopyKindName(int64_t kind) {
  switch (kind) {  // ENUM_CUDA_MEMCPY_OPER
    case 1:
      return "Memcpy HtoD";
    case 2:
      return "Memcpy DtoH";
    case 3:
      return "Memcpy HtoA";
    case 4:
      return "Memcpy AtoH";
    case 5:
      return "Memcpy AtoA";
    case 6:
      return "Memcpy AtoD";
    case 7:
      return "Memcpy DtoA";
    case 8:
      return "Memcpy DtoD";
    case 9:
      return "Memcpy HtoH";
    case 10:
      return "Memcpy PtoP";
    default:
      return "Memcpy";
  }
}

std::string CopyKindFromEnumName(std::string_view name) {
  size_t us = name.rfind('_');
  std::string_view dir = us == std::string_view::npos ? name : name.substr(us + 1);
  if (dir.size() != 4 || (dir.substr(1, 2) != "TO" && dir.substr(1, 2) != "to")) return "";
  std::string out = "Memcpy ";
  out += static_cast<char>(std::toupper(static_cast<unsigned char>(dir[0])));
  out += "to";
  out += static_cast<char>(std::toupper(static_cast<unsigned char>(dir[3])));
  return out;
}

std::string_view SyncTypeName(int64_t type) {
  switch (type) {  // ENUM_CUPTI_SYNC_TYPE
    case 1:
      return "Sync: event synchronize";
    case 2:
      return "Sync: stream wait event";
    case 3:
      return "Sync: stream synchronize";
    case 4:
      return "Sync: context synchronize";
    default:
      return "Sync";
  }
}

bool IsCommKernelName(std::string_view name) {
  return name.substr(0, 4) == "nccl" || name.substr(0, 4) == "rccl";
}

}  // namespace gpufleet::trace
