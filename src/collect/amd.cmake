# AMD collectors: AMD SMI, ROCm SMI (legacy) and amdgpu sysfs, plus the
# fallback chain between them. Included from src/collect/CMakeLists.txt.
target_sources(gpufleet_collect PRIVATE
  amdsmi_library.cc
  amdsmi_collector.cc
  amdsmi_read.cc
  rocm_smi_library.cc
  rocm_smi_collector.cc
  amdgpu_sysfs_collector.cc
  amd_collector.cc
  kfd_events.cc
  rocprof_counters.cc
)

# Fake vendor libraries, each in its own directory under the file name the
# real loader asks for, so tests exercise the real dlopen path.
set(GPUFLEET_FAKE_AMD_DIR ${CMAKE_BINARY_DIR}/tests/fakes/amd)

function(gpufleet_fake_amd_library target source output_name subdir)
  add_library(${target} SHARED ${PROJECT_SOURCE_DIR}/tests/fakes/amd/${source})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output_name}
    LIBRARY_OUTPUT_DIRECTORY ${GPUFLEET_FAKE_AMD_DIR}/${subdir})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PRIVATE gpufleet_fake_support)
endfunction()

gpufleet_fake_amd_library(fake_amdsmi fake_amdsmi.cc amd_smi amdsmi)
gpufleet_fake_amd_library(fake_amdsmi_partial fake_amdsmi.cc amd_smi amdsmi_partial)
target_compile_definitions(fake_amdsmi_partial PRIVATE FAKE_AMDSMI_PARTIAL)
# Types come from the Debian header <rocm_smi/rocm_smi.h>.
gpufleet_fake_amd_library(fake_rocm_smi fake_rocm_smi.cc rocm_smi64 rocm_smi)

gpufleet_test(collect_amd_test
  SOURCES
    amdsmi_collector_test.cc
    rocm_smi_collector_test.cc
    amdgpu_sysfs_collector_test.cc
    amd_collector_test.cc
    kfd_events_test.cc
    rocprof_counters_test.cc
  LIBS gpufleet::collect gpufleet::normalize gpufleet::data gpufleet_collect_testing
  LABELS unit)
target_compile_definitions(collect_amd_test PRIVATE
  FAKE_AMDSMI_PATH="$<TARGET_FILE:fake_amdsmi>"
  FAKE_AMDSMI_PARTIAL_PATH="$<TARGET_FILE:fake_amdsmi_partial>"
  FAKE_ROCM_SMI_PATH="$<TARGET_FILE:fake_rocm_smi>"
  AMD_SYSFS_TREE="${PROJECT_SOURCE_DIR}/tests/data/sysfs/amd")
add_dependencies(collect_amd_test fake_amdsmi fake_amdsmi_partial fake_rocm_smi)
