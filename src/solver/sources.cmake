target_sources(wave3d_node PRIVATE solver/block_tuner.cpp solver/temporal_sweep.cpp solver/tuning_cache.cpp solver/update_regions.cpp solver/wave_solver.cpp)
