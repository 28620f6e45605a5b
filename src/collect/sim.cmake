# The simulated fleet (scenario files -> sim collector) and process -> pod
# attribution. Included by src/collect/CMakeLists.txt.
target_sources(gpufleet_collect PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/process_attribution.cc
  ${CMAKE_CURRENT_LIST_DIR}/scenario.cc
  ${CMAKE_CURRENT_LIST_DIR}/scenario_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/sim_collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/sim_model.cc
)
# LoadScenario("default") reads the embedded data/scenarios/default.toml.
target_link_libraries(gpufleet_collect PRIVATE gpufleet::data)

gpufleet_test(collect_sim_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/scenario_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/sim_collector_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/process_attribution_test.cc
  LIBS gpufleet::collect gpufleet::normalize gpufleet::data
  LABELS unit)
