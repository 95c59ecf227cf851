target_sources(wave3d_node PRIVATE solver/wave_solver.cpp)
