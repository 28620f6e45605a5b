# Incidents, evidence and inventory in the SQLite state database.
