target_sources(wave3d PRIVATE
  run_command.cpp tune_command.cpp bench_command.cpp bench_layout.cpp bench_measure.cpp bench_rounds.cpp bench_options.cpp stream_command.cpp thread_list.cpp
  plan_command.cpp placement_cli.cpp advise_command.cpp advise_measure.cpp iobench_command.cpp
  root_only.cpp python_script.cpp command_provenance.cpp)
# noise: its --duration and --cpus take the same syntax as wave3d-noise, through the same parser.
target_sources(wave3d PRIVATE noise_command.cpp noise_ranks.cpp noise_output.cpp)
target_link_libraries(wave3d PRIVATE wave3d_noise_parse)
# advise draws its PNG with the project's plotting tool (python_tool), run by the interpreter CMake found.
set_property(SOURCE advise_command.cpp APPEND PROPERTY COMPILE_DEFINITIONS
  WAVE3D_PYTHON_EXECUTABLE="${Python3_EXECUTABLE}")
# iobench draws its PNG with the project's plotting tool, run by the interpreter CMake found (none: it
# says the PNG cannot be written).
if(WAVE3D_PYTHON_ANALYSIS)
  set(wave3d_iobench_python "${Python3_EXECUTABLE}")
else()
  set(wave3d_iobench_python "")
endif()
set_property(SOURCE iobench_command.cpp APPEND PROPERTY COMPILE_DEFINITIONS
  WAVE3D_PYTHON_EXECUTABLE="${wave3d_iobench_python}")
