target_sources(wave3d_node PRIVATE geometry/box.cpp)
