#include "app/time_loop.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>

#include "field/periodic_halo.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "output/progress.hpp"
#include "runtime/memory_usage.hpp"
#include "solver/wave_solver.hpp"
#include "verify/exact_mode.hpp"
#include "verify/field_checks.hpp"

namespace wave3d::app {
namespace {

int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// Round-off of the leapfrog recurrence grows about linearly with the number of steps; 50 ulps of
// the amplitude per step is far below any discretisation error and far above honest round-off.
template <typename T>
double derived_tolerance(const RunConfig& config, int steps) {
  return 50.0 * (steps + 1) * std::numeric_limits<T>::epsilon() * std::abs(config.initial.amplitude);
}

bool uses_exact_verification(const RunConfig& config) {
  return config.verify == VerifyMethod::exact ||
         (config.verify == VerifyMethod::automatic && config.initial.kind == InitialKind::mode);
}

template <typename T>
Verification verify(const RunConfig& config, const WaveSolver<T>& solver, MPI_Comm comm) {
  Verification v;
  if (!uses_exact_verification(config)) {
    v.method = "none";
    v.status = VerificationStatus::not_verified;
    v.detail = "no exact solution for this initial condition; compare the checksum with a reference run";
    return v;
  }
  v.method = "exact";
  const ExactMode exact(config.initial, config.grid, config.physics);
  const int n = solver.steps_done();
  const double local = max_abs_difference<T>(solver.current(), solver.current().owned(),
                                              [&](auto x, auto y, auto z) { return exact.value(n, x, y, z); });
  const double error = mpi::allreduce_max(comm, local);
  const double tolerance = config.verify_tolerance > 0 ? config.verify_tolerance : derived_tolerance<T>(config, n);
  v.max_error = error;
  v.tolerance = tolerance;
  v.status = error <= tolerance ? VerificationStatus::verified : VerificationStatus::failed;
  char line[200];
  std::snprintf(line, sizeof line, "max |u - u_exact| = %.3e after %d steps (tolerance %.3e)", error, n, tolerance);
  v.detail = line;
  return v;
}

std::vector<StepTimes> gather_step_times(const StepTimes& mine, MPI_Comm comm) {
  const int size = comm_size(comm);
  const int rank = comm_rank(comm);
  const std::vector<double>& values = mine.values();
  std::vector<double> all(rank == 0 ? values.size() * size : 0);
  mpi::check(MPI_Gather(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, all.data(),
                        static_cast<int>(values.size()), MPI_DOUBLE, 0, comm),
             "MPI_Gather");
  std::vector<StepTimes> per_rank;
  if (rank != 0) return per_rank;
  for (int r = 0; r < size; ++r) {
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(r * values.size());
    per_rank.emplace_back(mine.steps(), mine.phases(), std::vector<double>(first, first + values.size()));
  }
  return per_rank;
}

}  // namespace

template <typename T>
RunOutcome run_time_loop(const RunConfig& config, MPI_Comm comm) {
  const int rank = comm_rank(comm);
  if (comm_size(comm) != 1)
    throw std::runtime_error("this build runs on one MPI rank only; start it with mpiexec -n 1");
  const Box owned = config.grid.whole();

  RunOutcome out;
  out.rss_before_fields = current_rss_bytes();
  reset_peak_rss();
  // An allocation that fails on one rank must end the job on all of them, not leave them waiting.
  std::optional<WaveSolver<T>> holder;
  mpi::collectively(comm, [&] { holder.emplace(config, owned); });
  WaveSolver<T>& solver = *holder;
  out.field_bytes = solver.field_bytes();
  out.updated_points = config.grid.updated_points();
  out.flops_per_point = Kernel<T>::flops_per_point(config.grid.radius);
  out.bytes_per_point = Kernel<T>::bytes_per_point();

  const auto update_halo = [&](Field<T>& f) {
    if (config.grid.boundary == Boundary::periodic) fill_periodic_halo(f, config.grid);
  };

  StepTimes times(config.steps, {"halo", "compute", "check", "total"});
  const std::size_t halo_i = 0, compute_i = 1, check_i = 2, total_i = 3;
  ProgressReporter progress(config.steps, rank == 0 ? config.progress : ProgressMode::off, stdout,
                            static_cast<double>(out.updated_points));
  int last_clean_step = 0;
  mpi::check(MPI_Barrier(comm), "MPI_Barrier");
  const double start = omp_get_wtime();
  for (int s = 0; s < config.steps; ++s) {
    const double t0 = omp_get_wtime();
    const auto phases = solver.step(update_halo);
    times.record(s, halo_i, phases.halo);
    times.record(s, compute_i, phases.compute);
    const int done = solver.steps_done();
    if (done % config.check_every == 0 || done == config.steps) {
      const double c0 = omp_get_wtime();
      const bool finite = mpi::allreduce_and(comm, all_finite(solver.current(), solver.update_region()));
      times.record(s, check_i, omp_get_wtime() - c0);
      if (!finite) {
        out.failure = "non-finite values (NaN or Inf) appeared between step " + std::to_string(last_clean_step + 1) +
                      " and step " + std::to_string(done) + "; the run was stopped there";
        times.record(s, total_i, omp_get_wtime() - t0);
        break;
      }
      last_clean_step = done;
    }
    times.record(s, total_i, omp_get_wtime() - t0);
    progress.update(done, omp_get_wtime() - start);
  }
  const double local_seconds = omp_get_wtime() - start;
  progress.finish();
  out.steps_done = solver.steps_done();
  out.loop_seconds = mpi::allreduce_max(comm, local_seconds);
  out.peak_rss = peak_rss_bytes();

  if (out.failure) {
    out.verification.status = VerificationStatus::failed;
    out.verification.method = "none";
    out.verification.detail = *out.failure;
  } else {
    out.verification = verify(config, solver, comm);
  }
  const Box& mine = solver.current().owned();
  out.checksum = mpi::allreduce_sum_u64(comm, field_checksum(solver.current(), mine, config.grid));
  out.l2_norm = std::sqrt(mpi::allreduce_sum(comm, sum_of_squares(solver.current(), mine)));
  out.step_times = gather_step_times(times, comm);
  return out;
}

const char* status_word(VerificationStatus status) {
  switch (status) {
    case VerificationStatus::verified: return "VERIFIED";
    case VerificationStatus::not_verified: return "NOT VERIFIED";
    case VerificationStatus::failed: return "FAILED";
  }
  return "FAILED";
}

template RunOutcome run_time_loop<float>(const RunConfig&, MPI_Comm);
template RunOutcome run_time_loop<double>(const RunConfig&, MPI_Comm);

}  // namespace wave3d::app
