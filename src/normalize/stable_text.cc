#include "normalize/stable_text.h"

#include <algorithm>

namespace gpufleet {

std::string_view StableText::Keep(std::string_view text) {
  constexpr size_t kChunkBytes = 1 << 20;
  if (text.size() > left_) {
    size_t size = std::max(kChunkBytes, text.size());
    chunks_.push_back(std::make_unique<char[]>(size));
    next_ = chunks_.back().get();
    left_ = size;
  }
  char* dst = next_;
  std::copy(text.begin(), text.end(), dst);
  next_ += text.size();
  left_ -= text.size();
  return std::string_view(dst, text.size());
}

}  // namespace gpufleet
