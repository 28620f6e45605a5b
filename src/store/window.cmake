# In-memory window store of recent samples per series.
target_sources(gpufleet_store PRIVATE ${CMAKE_CURRENT_LIST_DIR}/window_store.cc)

gpufleet_test(store_window_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/window_store_test.cc
  LIBS gpufleet::store
  LABELS unit)
