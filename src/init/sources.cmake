target_sources(wave3d_node PRIVATE init/initial_condition.cpp)
