// Data files compiled into the binary (see data/CMakeLists.txt and
// cmake/embed.cmake). Defined by the generated gpufleet::data library; link it
// wherever these are called.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace gpufleet {

// `name` is the path relative to data/, e.g. "mappings/nvml.toml".
std::optional<std::string_view> FindEmbeddedFile(std::string_view name);
std::vector<std::string_view> EmbeddedFileNames();

}  // namespace gpufleet
