// AbiCompatible<Ours, Theirs>: whether a function or object type we declare
// by hand can stand for the vendor's at the C calling boundary (x86-64 / Linux
// SysV). Used only by the static_asserts in tests/abi/.
//
// Our declarations deliberately erase vendor types, so exact type equality is
// too strict; these are the only relaxations:
//   - `int` (ours) matches an enum of int size (cudaError_t, cublasOperation_t).
//   - an enum (ours) matches an enum of the same size (nvml::nvmlReturn_t).
//   - `void*` / `const void*` (ours) matches a pointer to any struct or void
//     with the same constness (cudaStream_t = CUstream_st*, a descriptor, a
//     result struct whose layout is checked on its own).
//   - pointers match when their pointees do (void** vs cudaStream_t*).
// Everything else, including every integer width and signedness, float vs
// double and the parameter count, must be identical.
#pragma once

#include <cstddef>
#include <type_traits>

namespace gpufleet::abi {

template <typename Ours, typename Theirs>
struct AbiCompatible : std::is_same<Ours, Theirs> {};

template <typename Theirs>
  requires std::is_enum_v<Theirs>
struct AbiCompatible<int, Theirs> : std::bool_constant<sizeof(Theirs) == sizeof(int)> {};

template <typename Ours, typename Theirs>
  requires(std::is_enum_v<Ours> && std::is_enum_v<Theirs>)
struct AbiCompatible<Ours, Theirs> : std::bool_constant<sizeof(Ours) == sizeof(Theirs)> {};

template <typename Ours, typename Theirs>
consteval bool PointeeCompatible() {
  if constexpr (std::is_const_v<Ours> != std::is_const_v<Theirs>) {
    return false;
  } else {
    using O = std::remove_cv_t<Ours>;
    using T = std::remove_cv_t<Theirs>;
    if constexpr (std::is_void_v<O>) {
      return std::is_void_v<T> || std::is_class_v<T> || std::is_union_v<T>;
    } else {
      return AbiCompatible<O, T>::value;
    }
  }
}

template <typename Ours, typename Theirs>
struct AbiCompatible<Ours*, Theirs*> : std::bool_constant<PointeeCompatible<Ours, Theirs>()> {};

template <typename OursR, typename... OursA, typename TheirsR, typename... TheirsA>
consteval bool FunctionCompatible(OursR (*)(OursA...), TheirsR (*)(TheirsA...)) {
  if constexpr (sizeof...(OursA) != sizeof...(TheirsA)) {
    return false;
  } else {
    return AbiCompatible<OursR, TheirsR>::value && (AbiCompatible<OursA, TheirsA>::value && ...);
  }
}

template <typename OursR, typename... OursA, typename TheirsR, typename... TheirsA>
struct AbiCompatible<OursR(OursA...), TheirsR(TheirsA...)>
    : std::bool_constant<FunctionCompatible(static_cast<OursR (*)(OursA...)>(nullptr),
                                            static_cast<TheirsR (*)(TheirsA...)>(nullptr))> {};

// Vendor functions declared noexcept (glibc style) have the same ABI.
template <typename OursR, typename... OursA, typename TheirsR, typename... TheirsA>
struct AbiCompatible<OursR(OursA...), TheirsR(TheirsA...) noexcept>
    : AbiCompatible<OursR(OursA...), TheirsR(TheirsA...)> {};

template <typename Ours, typename Theirs>
inline constexpr bool kAbiCompatible = AbiCompatible<Ours, Theirs>::value;

}  // namespace gpufleet::abi

// Checks our function type `ours` against the vendor's declaration of
// `symbol` (a function name from a real header).
#define GPUFLEET_ABI_CHECK_FN(symbol, ours)                                           \
  static_assert(::gpufleet::abi::kAbiCompatible<ours, decltype(symbol)>, #symbol \
                " in the vendor header does not match our " #ours)

// The same for an overloaded name (C++ convenience overloads in the vendor
// header): `real_type` picks the C entry point by its exact header type.
#define GPUFLEET_ABI_CHECK_OVERLOADED_FN(symbol, real_type, ours)                       \
  static_assert(::gpufleet::abi::kAbiCompatible<ours, real_type>,                       \
                #symbol " in the vendor header does not match our " #ours);             \
  static_assert(sizeof(static_cast<real_type*>(&symbol)) > 0, #symbol " has no overload " \
                                                                      "of type " #real_type)

// Checks an enum constant (or macro) we use against the vendor's.
#define GPUFLEET_ABI_CHECK_VALUE(vendor_value, ours)                               \
  static_assert(static_cast<long long>(vendor_value) == static_cast<long long>(ours), \
                #vendor_value " differs from our " #ours)
