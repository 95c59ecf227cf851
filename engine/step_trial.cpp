#include "engine/step_trial.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "engine/subdomain_fields.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "runtime/statistics.hpp"

namespace wave3d::engine {

template <typename T>
RealStepTimer real_step_timer(const RunConfig& config, const mpi::CartesianComm& cart,
                              mpi::ProgressThread* progress_thread) {
  return [&config, &cart, progress_thread](const Blocking& blocking, KernelVariant variant, TemporalHalo halo,
                                           int steps, int repetitions) {
    RunConfig contender = config;
    contender.blocking = blocking;
    contender.kernel = kernel_choice_for(variant);
    contender.parallel.temporal_halo = halo;
    const MPI_Comm comm = cart.comm();
    SubdomainFields<T> fields;
    mpi::collectively(comm, [&] { build_subdomain_fields(fields, contender, cart); });
    StepDriver<T> driver = fields.driver(contender.parallel, progress_thread);
    const auto run_steps = [&](int count) {
      for (int done = 0; done < count; done += blocking.steps) driver.advance(std::min(blocking.steps, count - done));
    };
    run_steps(steps);  // warm-up: the first touch of the exchange's buffers, the caches, the pages
    std::vector<double> per_step;
    for (int r = 0; r < repetitions; ++r) {
      mpi::check(MPI_Barrier(comm), "MPI_Barrier");
      const double start = omp_get_wtime();
      run_steps(steps);
      per_step.push_back(mpi::allreduce_max(comm, omp_get_wtime() - start) / steps);
    }
    return median_of(per_step);
  };
}

template RealStepTimer real_step_timer<float>(const RunConfig&, const mpi::CartesianComm&, mpi::ProgressThread*);
template RealStepTimer real_step_timer<double>(const RunConfig&, const mpi::CartesianComm&, mpi::ProgressThread*);

}  // namespace wave3d::engine
