# Importers other than Kineto JSON (nsys, rocprof, NCCL/RCCL logs, RAS, Inspector, flight recorder) and hang analysis.
