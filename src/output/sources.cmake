# Results and provenance of a run: run directory, atomic files, run.json facts, steps.csv, progress.
target_sources(wave3d_node PRIVATE
  output/timestamps.cpp output/runtime_json.cpp output/provenance.cpp output/result_files.cpp
  output/progress.cpp output/json_document.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/build_info.cmake)
