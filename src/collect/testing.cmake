# Test-only support shared by the collector fragments (included first from
# src/collect/CMakeLists.txt):
#  - gpufleet_fake_support: the config-file and fault-injection code every
#    fake vendor library (tests/fakes/<vendor>/) is built with; static,
#    position-independent and hidden, so each fake .so carries its own copy
#    and exports only its vendor and control symbols.
#  - gpufleet_collect_testing: helpers for the collector test binaries
#    (src/collect/testing/collector_test_util.h).
add_library(gpufleet_fake_support STATIC ${PROJECT_SOURCE_DIR}/tests/fakes/common/fake_config.cc)
target_include_directories(gpufleet_fake_support PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(gpufleet_fake_support PUBLIC Threads::Threads)
set_target_properties(gpufleet_fake_support PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)

add_library(gpufleet_collect_testing STATIC ${CMAKE_CURRENT_LIST_DIR}/testing/collector_test_util.cc)
target_link_libraries(gpufleet_collect_testing PUBLIC gpufleet::collect gpufleet::normalize GTest::gtest)
