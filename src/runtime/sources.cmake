# Run-time facts of one process: timers, per-step times, memory, thread placement, the machine.
target_sources(wave3d_node PRIVATE
  runtime/step_times.cpp runtime/memory_usage.cpp runtime/hwloc_topology.cpp runtime/hostname.cpp
  runtime/cpu_list.cpp runtime/byte_size.cpp runtime/thread_binding.cpp runtime/machine_info.cpp
  runtime/bind_threads.cpp runtime/statistics.cpp runtime/thread_limit.cpp runtime/denormals.cpp)
