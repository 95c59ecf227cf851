target_sources(wave3d_node PRIVATE solver/block_tuner.cpp solver/temporal_sweep.cpp solver/tuning_cache.cpp solver/update_regions.cpp solver/wave_solver.cpp)

# Compiled on its own in unity builds: its tuning lambdas capture types of its anonymous namespace,
# which GCC warns about (-Wsubobject-linkage) once the file is included into another.
set_source_files_properties(solver/block_tuner.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
