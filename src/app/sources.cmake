target_sources(wave3d PRIVATE
  stream_command.cpp thread_list.cpp bench_command.cpp bench_measure.cpp run_command.cpp step_driver.cpp
  binding_map.cpp placement_setup.cpp root_only.cpp config_broadcast.cpp run_report.cpp time_loop.cpp plan_command.cpp
  noise_command.cpp advise_command.cpp iobench_command.cpp)
target_include_directories(wave3d PRIVATE ${PROJECT_SOURCE_DIR}/src)
