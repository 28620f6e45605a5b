# Incidents, evidence and inventory in the SQLite state database.
target_sources(gpufleet_store PRIVATE incident_store.cc inventory_store.cc)
target_link_libraries(gpufleet_store PRIVATE nlohmann_json::nlohmann_json)

gpufleet_test(store_incidents_test
  SOURCES incident_store_test.cc inventory_store_test.cc
  LIBS gpufleet::store)
