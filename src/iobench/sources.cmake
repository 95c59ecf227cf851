# The NUMA-aware parallel write (node level, no MPI, no HDF5): splitting a write by the NUMA node of
# its memory, I/O threads bound to nodes writing with pwrite, and the bandwidth study of wave3d iobench.
target_sources(wave3d_node PRIVATE
  iobench/segment_writer.cpp iobench/node_split.cpp iobench/io_thread_plan.cpp iobench/io_threads.cpp
  iobench/placed_buffer.cpp iobench/file_check.cpp iobench/file_system.cpp iobench/numa_distances.cpp
  iobench/path_kind.cpp iobench/io_study.cpp iobench/io_study_json.cpp iobench/io_study_report.cpp
  iobench/box_segments.cpp iobench/node_aware_write.cpp)
