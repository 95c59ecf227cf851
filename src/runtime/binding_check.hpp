#pragma once
// Checks of where threads actually run against what a run needs: threads crowded onto fewer CPUs
// than there are threads (the classic trap: Open MPI binds each rank to one core by default when it
// starts 1 or 2 ranks, so every OpenMP thread of a rank shares that core), and threads that landed
// on CPUs other than the ones planned for them.
#include <optional>
#include <string>
#include <vector>

#include "runtime/thread_binding.hpp"

namespace wave3d {

// A warning when the threads of this process can use fewer distinct CPUs than there are threads;
// nullopt when each thread can have a CPU of its own.
std::optional<std::string> crowded_threads_warning(const ThreadBinding& binding);

// Warnings for threads whose CPU or affinity mask differs from the planned CPUs (planned[t] are the
// OS CPU indices thread t may use); empty when reality matches the plan.
std::vector<std::string> plan_mismatch_warnings(const ThreadBinding& binding,
                                                const std::vector<std::vector<int>>& planned);

}  // namespace wave3d
