// The table generated at build time by console_assets_gen.cmake (private to
// the console library; use console/console_assets.h).
#pragma once

#include <cstddef>

#include "console/console_assets.h"

namespace gpufleet::console {

extern const Asset kEmbeddedAssets[];
extern const size_t kEmbeddedAssetCount;

}  // namespace gpufleet::console
