target_sources(wave3d_mpi PRIVATE decomposition.cpp)
target_sources(wave3d_mpi PRIVATE cartesian.cpp halo_exchange.cpp)
