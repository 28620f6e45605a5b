# NVIDIA NVML collector: its sources, the fake libnvidia-ml builds and the
# collect_nvml_test binary. Included from src/collect/CMakeLists.txt.
target_sources(gpufleet_collect PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/nvml_api.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml_collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml_gpm_events.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml_readings.cc
  ${CMAKE_CURRENT_LIST_DIR}/ncu_metrics.cc
  ${CMAKE_CURRENT_LIST_DIR}/capture_files.cc
)

# Fake libnvidia-ml.so.1 variants, named so the real loading code loads them
# (tests/fakes/nvml/fake_nvml_control.h describes them).
set(GPUFLEET_FAKE_NVML_DIR ${PROJECT_BINARY_DIR}/tests/fakes/nvml)
function(gpufleet_fake_nvml target subdir)
  add_library(${target} SHARED
    ${PROJECT_SOURCE_DIR}/tests/fakes/nvml/fake_nvml.cc
    ${PROJECT_SOURCE_DIR}/tests/fakes/nvml/fake_nvml_mig_gpm.cc
    ${PROJECT_SOURCE_DIR}/tests/fakes/nvml/fake_nvml_state.cc)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PRIVATE gpufleet_fake_support)
  target_compile_definitions(${target} PRIVATE ${ARGN})
  # Never unloaded: its state outlives dlclose (as a driver's would), threads
  # blocked in a scripted hang stay safe, and LeakSanitizer still sees it.
  target_link_options(${target} PRIVATE -Wl,-z,nodelete)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME nvidia-ml
    SOVERSION 1
    LIBRARY_OUTPUT_DIRECTORY ${GPUFLEET_FAKE_NVML_DIR}${subdir})
endfunction()
gpufleet_fake_nvml(fake_nvml "")
gpufleet_fake_nvml(fake_nvml_partial "/partial" FAKE_NVML_PARTIAL)
gpufleet_fake_nvml(fake_nvml_broken "/broken" FAKE_NVML_NO_UUID)

gpufleet_test(collect_nvml_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/nvml_collector_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/ncu_metrics_test.cc
  LIBS gpufleet::collect gpufleet::normalize gpufleet::data gpufleet_collect_testing
  LABELS unit)
target_include_directories(collect_nvml_test PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(collect_nvml_test PRIVATE
  FAKE_NVML_PATH="${GPUFLEET_FAKE_NVML_DIR}/libnvidia-ml.so.1"
  FAKE_NVML_PARTIAL_PATH="${GPUFLEET_FAKE_NVML_DIR}/partial/libnvidia-ml.so.1"
  FAKE_NVML_BROKEN_PATH="${GPUFLEET_FAKE_NVML_DIR}/broken/libnvidia-ml.so.1")
add_dependencies(collect_nvml_test fake_nvml fake_nvml_partial fake_nvml_broken)
