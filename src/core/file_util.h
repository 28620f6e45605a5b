// File helpers with errors that name the path.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace gpufleet {

// Reads a whole file. NotFound / PermissionDenied / DataLoss name the path.
StatusOr<std::string> ReadFileToString(const std::string& path);
// Writes atomically (temp file + rename).
Status WriteStringToFile(const std::string& path, std::string_view data);

}  // namespace gpufleet
