#pragma once
// Where the OpenMP threads of this process actually run: each thread's CPU, affinity mask and NUMA
// node, and the binding policy the OpenMP runtime applied. Used to check that OMP_PROC_BIND /
// OMP_PLACES (and the MPI launcher's binding) did what the job script intended.
#include <optional>
#include <string>
#include <vector>

namespace wave3d {

struct ThreadPlacement {
  int thread = 0;                // omp_get_thread_num()
  std::optional<int> cpu;        // sched_getcpu() at the moment of the report
  std::vector<int> allowed_cpus;  // the thread's affinity mask, ascending
  std::string affinity;          // allowed_cpus in list notation, e.g. "0-3,8"
  std::optional<int> numa_node;  // OS index of the NUMA node local to `cpu`
  std::optional<int> core;       // logical index of the core holding `cpu`
  int place = -1;                // omp_get_place_num(); -1 when the thread is not bound to a place
};

struct ThreadBinding {
  std::string proc_bind;  // policy for the reported region: "false", "true", "primary", "close", "spread"
  int num_places = 0;     // omp_get_num_places(); 0 when there is no place list
  std::string places;     // the place list as CPU sets, e.g. "{0-1},{2-3}"; empty without places
  std::optional<std::string> omp_proc_bind_env;  // OMP_PROC_BIND / OMP_PLACES as set, if set
  std::optional<std::string> omp_places_env;
  std::vector<ThreadPlacement> threads;  // one per thread of the team, indexed by thread number
};

// The CPUs the launcher gave this process. With OMP_PROC_BIND set, the OpenMP runtime binds the
// initial thread to its first place while it starts up, before main(), so the thread's own mask no
// longer shows them; the place list, built from the mask the process started with, still does.
// Without places it is the calling thread's affinity (call it before binding anything).
std::vector<int> launch_affinity();

// Opens a parallel region of `num_threads` threads (0: the team size the next region would get
// by default) and has every thread report where it runs. Loads the hwloc topology for the NUMA
// lookup, so call it once at start-up, not inside the time loop.
ThreadBinding report_thread_binding(int num_threads = 0);

}  // namespace wave3d
