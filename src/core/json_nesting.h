// Deepest [ / { nesting of a JSON text outside strings, without parsing it:
// lets a parser refuse hostile input before recursing into it. Closers
// without an opener do not make the depth negative. Thread-safe (pure).
#pragma once

#include <cstddef>
#include <string_view>

namespace gpufleet {

size_t MaxJsonNesting(std::string_view text);

}  // namespace gpufleet
