#include "console/console_assets.h"

#include "console/console_assets_data.h"

namespace gpufleet::console {

const Asset* FindAsset(std::string_view path) {
  for (size_t i = 0; i < kEmbeddedAssetCount; ++i) {
    if (kEmbeddedAssets[i].path == path) return &kEmbeddedAssets[i];
  }
  return nullptr;
}

std::vector<const Asset*> AllAssets() {
  std::vector<const Asset*> out;
  if (const Asset* index = FindAsset("index.html")) out.push_back(index);
  for (size_t i = 0; i < kEmbeddedAssetCount; ++i) {
    if (kEmbeddedAssets[i].path != "index.html") out.push_back(&kEmbeddedAssets[i]);
  }
  return out;
}

}  // namespace gpufleet::console
