# Importers other than Kineto JSON (nsys, rocprof, NCCL/RCCL logs, RAS, Inspector, flight recorder) and hang analysis.
target_sources(gpufleet_trace PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/import_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/sqlite_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/nsys_sqlite_importer.cc
  ${CMAKE_CURRENT_LIST_DIR}/nsys_page_faults.cc
  ${CMAKE_CURRENT_LIST_DIR}/nsys_names.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_importer.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_hang.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_json_importer.cc
  ${CMAKE_CURRENT_LIST_DIR}/flight_recorder_importer.cc
  ${CMAKE_CURRENT_LIST_DIR}/rocprof_csv_importer.cc
  ${CMAKE_CURRENT_LIST_DIR}/rocpd_importer.cc
  ${CMAKE_CURRENT_LIST_DIR}/rocprof_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/ras_text_hang.cc
  ${CMAKE_CURRENT_LIST_DIR}/hang.cc
  ${CMAKE_CURRENT_LIST_DIR}/hang_report.cc
)

gpufleet_test(trace_importers_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/nsys_sqlite_importer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/nsys_page_faults_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/nccl_log_importer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/nccl_json_importer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/flight_recorder_importer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/rocprof_csv_importer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/rocpd_importer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/hang_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/nccl_log_hang_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/importer_sniff_test.cc
  LIBS gpufleet::trace SQLite::SQLite3 nlohmann_json::nlohmann_json
  LABELS unit)
