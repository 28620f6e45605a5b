# Intel collectors: Level Zero Sysman (levelzero) and the i915/xe sysfs
# fallback (intel_sysfs), the chooser between them, the fake Level Zero
# loader and the collect_intel_test binary.
#
# The Level Zero header (Debian libze-dev) gives the types and signatures;
# the library itself is only ever dlopen'd. Without the header the levelzero
# collector is built as a stub whose Discover() says why.
find_path(GPUFLEET_LEVEL_ZERO_INCLUDE_DIR level_zero/zes_api.h)

target_sources(gpufleet_collect PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/intel_collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/intel_sysfs_collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/unitrace_metrics.cc)

set(_intel_test_sources
  ${CMAKE_CURRENT_LIST_DIR}/intel_collector_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/intel_sysfs_collector_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/intel_mapping_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/intel_normalize_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/unitrace_metrics_test.cc)

if(GPUFLEET_LEVEL_ZERO_INCLUDE_DIR)
  target_sources(gpufleet_collect PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/levelzero_api.cc
    ${CMAKE_CURRENT_LIST_DIR}/levelzero_collector.cc
    ${CMAKE_CURRENT_LIST_DIR}/levelzero_read.cc)
  target_include_directories(gpufleet_collect SYSTEM PRIVATE ${GPUFLEET_LEVEL_ZERO_INCLUDE_DIR})

  # Fake loaders, each named libze_loader.so.1 in its own directory: the
  # complete one and a partial one (API 1.4 entry points only, some Sysman
  # functions missing).
  foreach(variant full partial)
    set(_target gpufleet_fake_ze_loader_${variant})
    add_library(${_target} SHARED
      ${PROJECT_SOURCE_DIR}/tests/fakes/levelzero/fake_ze_loader.cc
      ${PROJECT_SOURCE_DIR}/tests/fakes/levelzero/fake_ze_model.cc)
    target_include_directories(${_target} SYSTEM PRIVATE ${GPUFLEET_LEVEL_ZERO_INCLUDE_DIR})
    target_link_libraries(${_target} PRIVATE gpufleet_fake_support)
    set_target_properties(${_target} PROPERTIES
      OUTPUT_NAME ze_loader
      PREFIX lib
      SUFFIX .so.1
      NO_SONAME ON
      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/fakes/levelzero_${variant})
  endforeach()
  target_compile_definitions(gpufleet_fake_ze_loader_partial PRIVATE FAKE_ZE_PARTIAL)
  list(APPEND _intel_test_sources ${CMAKE_CURRENT_LIST_DIR}/levelzero_collector_test.cc)
else()
  message(STATUS "level_zero/zes_api.h not found: levelzero collector built as a stub")
  target_sources(gpufleet_collect PRIVATE ${CMAKE_CURRENT_LIST_DIR}/levelzero_unavailable.cc)
endif()

gpufleet_test(collect_intel_test
  SOURCES ${_intel_test_sources}
  LIBS gpufleet::collect gpufleet::normalize gpufleet::data gpufleet_collect_testing
  LABELS unit)
target_include_directories(collect_intel_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(collect_intel_test PRIVATE
  INTEL_SYSFS_TREE="${PROJECT_SOURCE_DIR}/tests/data/sysfs/intel")
if(GPUFLEET_LEVEL_ZERO_INCLUDE_DIR)
  add_dependencies(collect_intel_test
    gpufleet_fake_ze_loader_full gpufleet_fake_ze_loader_partial)
  target_compile_definitions(collect_intel_test PRIVATE
    GPUFLEET_HAVE_LEVEL_ZERO=1
    GPUFLEET_FAKE_LEVELZERO_DIR="${PROJECT_BINARY_DIR}/tests/fakes/levelzero_full"
    GPUFLEET_FAKE_LEVELZERO_PARTIAL_DIR="${PROJECT_BINARY_DIR}/tests/fakes/levelzero_partial")
endif()
