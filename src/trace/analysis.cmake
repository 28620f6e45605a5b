# Analyses (breakdown, idle, kernel stats, launch delay, overlap, stragglers, diff) and report writers.
