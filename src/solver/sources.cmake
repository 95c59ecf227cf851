target_sources(wave3d_node PRIVATE solver/temporal_sweep.cpp solver/update_regions.cpp solver/wave_solver.cpp)
