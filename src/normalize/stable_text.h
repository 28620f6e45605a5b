// StableText: views of label text that stay valid for a whole translation:
// text that lies in the input is used as it is; anything else (a value the
// parser had to unescape, a canonical PCI bus id) is copied into chunks kept
// here. Private to normalize/; not thread-safe, one per translation.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace gpufleet {

class StableText {
 public:
  // `input` is the text being translated; it must outlive this object.
  explicit StableText(std::string_view input) : input_(input) {}

  // A copy of `text` that lives as long as this object.
  std::string_view Keep(std::string_view text);
  // `text` itself when it lies in the input (the parser hands out views into
  // it unless it had to unescape), else Keep(text).
  std::string_view Stable(std::string_view text) {
    std::less<const char*> before;
    bool inside = !before(text.data(), input_.data()) &&
                  !before(input_.data() + input_.size(), text.data() + text.size());
    return inside ? text : Keep(text);
  }

 private:
  std::string_view input_;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* next_ = nullptr;  // free room in the last chunk
  size_t left_ = 0;
};

}  // namespace gpufleet
