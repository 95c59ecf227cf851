# The NUMA-aware direct write of field files: HDF5 lays the file out, I/O threads write the values.
target_sources(wave3d_io PRIVATE direct/direct_field_file.cpp)
