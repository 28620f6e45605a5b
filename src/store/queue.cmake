# Bounded on-disk queue and the remote-write forwarder that drains it.
find_package(ZLIB REQUIRED)
target_sources(gpufleet_store PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/disk_queue.cc
  ${CMAKE_CURRENT_LIST_DIR}/remote_write_forwarder.cc)
target_link_libraries(gpufleet_store PUBLIC gpufleet::expo PRIVATE PkgConfig::HTTPLIB ZLIB::ZLIB
  Threads::Threads)

gpufleet_test(store_queue_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/disk_queue_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/remote_write_forwarder_test.cc
  LIBS gpufleet::store PkgConfig::HTTPLIB
  LABELS unit)
