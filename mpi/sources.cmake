target_sources(wave3d_mpi PRIVATE decomposition.cpp)
