target_sources(wave3d PRIVATE
  stream_command.cpp thread_list.cpp bench_command.cpp bench_measure.cpp run_command.cpp step_driver.cpp
  binding_map.cpp binding_audit.cpp placement_setup.cpp root_only.cpp config_broadcast.cpp run_report.cpp time_loop.cpp plan_command.cpp
  noise_command.cpp advise_command.cpp iobench_command.cpp blocking_tuning.cpp tune_command.cpp)
target_sources(wave3d PRIVATE placement_cli.cpp advise_measure.cpp python_script.cpp)
# run: snapshots, checkpoints and restart through wave3d_io (parallel HDF5).
target_sources(wave3d PRIVATE field_io_record.cpp field_io_schedule.cpp)
# run: event counters per region and thread, and DRAM traffic (src/counters).
target_sources(wave3d PRIVATE run_counters.cpp)
# noise: its --duration and --cpus take the same syntax as wave3d-noise, through the same parser.
target_sources(wave3d PRIVATE noise_ranks.cpp noise_output.cpp)
target_link_libraries(wave3d PRIVATE wave3d_noise_parse)
target_include_directories(wave3d PRIVATE ${PROJECT_SOURCE_DIR}/src)
# advise draws its PNG with the project's plotting tool, run by the interpreter CMake found.
set_property(SOURCE advise_command.cpp APPEND PROPERTY COMPILE_DEFINITIONS
  WAVE3D_PYTHON_EXECUTABLE="${Python3_EXECUTABLE}"
  WAVE3D_PLOT_ADVISE_SCRIPT="${PROJECT_SOURCE_DIR}/results/tools/plot_advise.py")
# iobench draws its PNG with the project's plotting tool, run by the interpreter CMake found (none: it
# says the PNG cannot be written).
if(WAVE3D_PYTHON_ANALYSIS)
  set(wave3d_iobench_python "${Python3_EXECUTABLE}")
else()
  set(wave3d_iobench_python "")
endif()
set_property(SOURCE iobench_command.cpp APPEND PROPERTY COMPILE_DEFINITIONS
  WAVE3D_PYTHON_EXECUTABLE="${wave3d_iobench_python}"
  WAVE3D_PLOT_IOBENCH_SCRIPT="${PROJECT_SOURCE_DIR}/results/tools/plot_iobench.py")
