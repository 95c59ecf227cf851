target_sources(wave3d_node PRIVATE solver/update_regions.cpp solver/wave_solver.cpp)
