# Inventory in the SQLite state database (incidents are detect's tables:
# detect/incident_store.h).
target_sources(gpufleet_store PRIVATE inventory_store.cc)
target_link_libraries(gpufleet_store PRIVATE nlohmann_json::nlohmann_json)

gpufleet_test(store_inventory_test
  SOURCES inventory_store_test.cc
  LIBS gpufleet::store)
