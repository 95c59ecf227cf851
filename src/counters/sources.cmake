# Hardware and software event counters per region and thread. The backend is the one place that knows
# whether PAPI is built in: papi_backend.cpp with WAVE3D_WITH_PAPI=ON, no_papi_backend.cpp without.
target_sources(wave3d_node PRIVATE
  counters/event_list.cpp counters/region_counters.cpp counters/dram_counter.cpp counters/rank_report.cpp
  counters/job_counters.cpp counters/counters_text.cpp counters/software_events.cpp
  counters/software_event_fallback.cpp)
if(WAVE3D_WITH_PAPI)
  target_sources(wave3d_node PRIVATE counters/papi_backend.cpp)
else()
  target_sources(wave3d_node PRIVATE counters/no_papi_backend.cpp)
endif()
