target_sources(wave3d_node PRIVATE verify/exact_mode.cpp verify/field_checks.cpp)
