# Project-wide compile flags. Warnings are errors when GPUFLEET_WERROR is on (CI).
add_compile_options(-Wall -Wextra -Wpedantic)
if(GPUFLEET_WERROR)
  add_compile_options(-Werror)
endif()
if(GPUFLEET_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(GPUFLEET_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# gpufleet_test(<component> SOURCES ... LIBS ... LABELS ...)
# One gtest binary per component, registered with ctest under the given labels.
function(gpufleet_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    GPUFLEET_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    GPUFLEET_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT 300)
endfunction()
