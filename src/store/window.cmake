# In-memory window store of recent samples per series.
