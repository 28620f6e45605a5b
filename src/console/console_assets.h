// The web console's files (web/, bundled by esbuild at build time and
// compiled into the binary by src/console/CMakeLists.txt): index.html and
// the content-hashed JS and CSS under assets/. No data, no secrets.
//
// Thread safety: the table is constant; every function is pure.
#pragma once

#include <string_view>
#include <vector>

namespace gpufleet::console {

struct Asset {
  std::string_view path;          // "index.html", "assets/console-XXXXXXXX.js"
  std::string_view content_type;  // from the extension, with charset for text
  std::string_view body;
  // True for the content-hashed files under assets/: their name changes
  // whenever their bytes do, so clients may cache them for good.
  bool immutable = false;
};

// The asset at `path` (no leading '/'), or nullptr.
const Asset* FindAsset(std::string_view path);

// Every embedded asset, index.html first.
std::vector<const Asset*> AllAssets();

}  // namespace gpufleet::console
