-- Derived rocpd database (schema_version 3, track/timestamp layout) for gpufleet's tests.
-- Tables and columns follow ROCm/rocprofiler-sdk source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql
-- @ 19d33bb3 (only the tables the importer reads; JSONB columns and foreign keys left out).
-- Values are invented: one process (pid 6001) on host mi300x-n12, one GPU (type_index 0),
-- a HIP launch + its kernel, an RCCL kernel, a host-to-device copy, a roctx range, and one
-- kernel whose end timestamp precedes its start (to be counted, not dropped silently).
CREATE TABLE rocpd_metadata_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
INSERT INTO rocpd_metadata_0195d1e2a3b47c5d8e9f00112233aabb (tag, value) VALUES
  ('schema_version', '3'), ('uuid', '_0195d1e2a3b47c5d8e9f00112233aabb'), ('guid', '0195d1e2-a3b4-7c5d-8e9f-00112233aabb');
CREATE TABLE rocpd_string_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, string TEXT NOT NULL UNIQUE);
INSERT INTO rocpd_string_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 'HIP_RUNTIME_API_EXT'), (2, 'g', 'hipLaunchKernel'), (3, 'g', 'MARKER_CORE_RANGE_API'),
  (4, 'g', 'optimizer step'), (5, 'g', 'MEMORY_COPY_HOST_TO_DEVICE'), (6, 'g', 'hipMemcpyAsync');
CREATE TABLE rocpd_info_node_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, hash BIGINT NOT NULL UNIQUE, machine_id TEXT NOT NULL UNIQUE, name TEXT, system_name TEXT, hostname TEXT, release TEXT, version TEXT, hardware_name TEXT, domain_name TEXT);
INSERT INTO rocpd_info_node_0195d1e2a3b47c5d8e9f00112233aabb VALUES (1, 'g', 77, 'm-77', NULL, 'Linux', 'mi300x-n12', '6.8.0', '#1 SMP', 'x86_64', '');
CREATE TABLE rocpd_info_process_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, name TEXT, init BIGINT, fini BIGINT, start BIGINT, end BIGINT, command TEXT);
INSERT INTO rocpd_info_process_0195d1e2a3b47c5d8e9f00112233aabb VALUES (1, 'g', 1, 5990, 6001, NULL, 0, 0, 0, 0, 'python train.py');
CREATE TABLE rocpd_info_thread_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT, start BIGINT, end BIGINT);
INSERT INTO rocpd_info_thread_0195d1e2a3b47c5d8e9f00112233aabb VALUES (1, 'g', 1, 5990, 1, 6001, NULL, 0, 0);
CREATE TABLE rocpd_info_agent_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, generic_name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT);
INSERT INTO rocpd_info_agent_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 1, 1, 'CPU', 0, 0, 0, 0, NULL, 'cpu', '', 'AuthenticAMD', 'AMD EPYC 9454'),
  (2, 'g', 1, 1, 'GPU', 2, 1, 0, 0, NULL, 'gfx942', 'mi300x', 'AMD', 'AMD Instinct MI300X');
CREATE TABLE rocpd_info_kernel_symbol_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, code_object_id INTEGER NOT NULL, kernel_name TEXT, display_name TEXT);
INSERT INTO rocpd_info_kernel_symbol_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 1, 1, 1, '_Z10gemm_tileILi128EEvPKfS1_Pfi.kd', 'void gemm_tile<128>(float const*, float const*, float*, int)'),
  (2, 'g', 1, 1, 1, 'ncclDevKernel_Generic_4.kd', 'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)');
CREATE TABLE rocpd_track_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER, queue_id INTEGER, stream_id INTEGER, name_id INTEGER);
INSERT INTO rocpd_track_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 1, 5990, 1, 1, NULL, NULL, NULL, NULL),
  (2, 'g', 1, 5990, 1, 1, 2, 1, 3, NULL),
  (3, 'g', 1, 5990, 1, 1, 2, 1, 5, NULL);
CREATE TABLE rocpd_timestamp_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, value BIGINT NOT NULL, phase INTEGER, track_id INTEGER);
INSERT INTO rocpd_timestamp_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 5100000001000, 1, 1), (2, 'g', 5100000001800, 2, 1),
  (3, 'g', 5100000002000, 1, 2), (4, 'g', 5100000009000, 2, 2),
  (5, 'g', 5100000009500, 1, 3), (6, 'g', 5100000030500, 2, 3),
  (7, 'g', 5100000000200, 1, 3), (8, 'g', 5100000000900, 2, 3),
  (9, 'g', 5100000000000, 1, 1), (10, 'g', 5100000040000, 2, 1),
  (11, 'g', 5100000000100, 1, 1), (12, 'g', 5100000000190, 2, 1),
  (13, 'g', 5100000050000, 1, 2), (14, 'g', 5100000049000, 2, 2);
CREATE TABLE rocpd_event_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER);
INSERT INTO rocpd_event_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 1, 11, 0, 11), (2, 'g', NULL, 11, 0, 11), (3, 'g', NULL, 12, 0, 12),
  (4, 'g', 3, 1, 0, 1), (5, 'g', 1, 10, 0, 10), (6, 'g', NULL, 10, 0, 10);
CREATE TABLE rocpd_region_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, track_id INTEGER NOT NULL, name_id INTEGER NOT NULL, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, event_id INTEGER);
INSERT INTO rocpd_region_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 1, 2, 1, 2, 1), (2, 'g', 1, 4, 9, 10, 4), (3, 'g', 1, 6, 11, 12, 5);
CREATE TABLE rocpd_kernel_dispatch_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, track_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL, workgroup_size_y INTEGER NOT NULL, workgroup_size_z INTEGER NOT NULL, grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL, grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER);
INSERT INTO rocpd_kernel_dispatch_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 2, 1, 1, 3, 4, 0, 0, 256, 1, 1, 8192, 1, 1, NULL, 2),
  (2, 'g', 3, 2, 2, 5, 6, 0, 512, 256, 1, 1, 2048, 1, 1, NULL, 3),
  (3, 'g', 2, 1, 3, 13, 14, 0, 0, 256, 1, 1, 8192, 1, 1, NULL, NULL);
CREATE TABLE rocpd_memory_copy_0195d1e2a3b47c5d8e9f00112233aabb (id INTEGER PRIMARY KEY, guid TEXT NOT NULL, track_id INTEGER NOT NULL, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, name_id INTEGER NOT NULL, dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER, size INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER);
INSERT INTO rocpd_memory_copy_0195d1e2a3b47c5d8e9f00112233aabb VALUES
  (1, 'g', 3, 7, 8, 5, 2, 0, 1, 0, 33554432, NULL, 6);
