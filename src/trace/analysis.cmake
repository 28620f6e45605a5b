# Analyses (breakdown, idle, kernel stats, launch delay, overlap, stragglers, diff) and report writers.
target_sources(gpufleet_trace PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis.cc
  ${CMAKE_CURRENT_LIST_DIR}/distribution.cc
  ${CMAKE_CURRENT_LIST_DIR}/idle_time.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/launch_latency.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_html.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/stragglers.cc
  ${CMAKE_CURRENT_LIST_DIR}/temporal_breakdown.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_diff.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_diff_writer.cc
)

gpufleet_test(trace_analysis_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/analysis_real_sample_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/analysis_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/distribution_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/report_writer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/trace_diff_test.cc
  LIBS gpufleet::trace nlohmann_json::nlohmann_json
  LABELS unit)
