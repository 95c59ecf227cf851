# Node-level probes: STREAM memory bandwidth; the cores' multiply-add peak; OS noise (fixed work quantum and selfish detour, with
# their analysis, detour traces, JSON and report).
find_package(Threads REQUIRED)
target_sources(wave3d_node PRIVATE probe/stream.cpp probe/stream_json.cpp probe/fma_peak.cpp
  probe/noise_analysis.cpp probe/noise_cpus.cpp probe/noise_probe.cpp probe/noise_result.cpp probe/noise_trace.cpp
  probe/noise_json.cpp probe/noise_report.cpp)
target_link_libraries(wave3d_node PUBLIC Threads::Threads)
