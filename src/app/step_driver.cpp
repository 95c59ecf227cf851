#include "app/step_driver.hpp"

#include <omp.h>

#include <stdexcept>

namespace wave3d::app {

template <typename T>
StepDriver<T>::StepDriver(const ParallelSettings& parallel, WaveSolver<T>& solver, mpi::HaloExchange<T>& halo,
                          mpi::ProgressThread* progress_thread)
    : parallel_(parallel), solver_(solver), halo_(halo), progress_thread_(progress_thread) {
  if (parallel.progress == ProgressEngine::thread && progress_thread == nullptr)
    throw std::logic_error("StepDriver: progress = thread needs a progress thread");
  // Thread 0 is the thread that initialised MPI, so polling from it is allowed at any thread level.
  poll_between_blocks_ = [this] {
    if (messages_done_) return;
    messages_done_ = halo_.test();
    if (messages_done_) polled_done_after_ = omp_get_wtime() - posted_at_;
  };
}

template <typename T>
StepPhaseTimes StepDriver<T>::step() {
  StepPhaseTimes t = parallel_.halo == HaloMode::bulk ? bulk_step() : overlap_step();
  solver_.advance();
  return t;
}

template <typename T>
void StepDriver<T>::record_halo_times(StepPhaseTimes& t) const {
  const mpi::HaloTimes h = halo_.last_times();
  t.pack = h.pack;
  t.wait = h.wait;
  t.unpack = h.unpack;
}

template <typename T>
StepPhaseTimes StepDriver<T>::bulk_step() {
  StepPhaseTimes t;
  halo_.exchange(solver_.halo_field());
  record_halo_times(t);
  region_done(counters::Region::halo);
  const double c0 = omp_get_wtime();
  solver_.compute(solver_.update_region());
  t.interior = omp_get_wtime() - c0;
  region_done(counters::Region::compute);
  return t;
}

template <typename T>
StepPhaseTimes StepDriver<T>::overlap_step() {
  StepPhaseTimes t;
  halo_.start(solver_.halo_field());
  region_done(counters::Region::halo);
  posted_at_ = omp_get_wtime();

  const std::function<void()>* hook = nullptr;
  if (parallel_.progress == ProgressEngine::thread) {
    progress_thread_->start([this] { return halo_.test(); });
  } else if (parallel_.progress == ProgressEngine::poll) {
    messages_done_ = false;
    polled_done_after_.reset();
    hook = &poll_between_blocks_;
  }
  solver_.compute(solver_.interior_region(), hook);
  t.interior = omp_get_wtime() - posted_at_;
  if (parallel_.progress == ProgressEngine::thread) t.messages_done_after = progress_thread_->stop();
  if (parallel_.progress == ProgressEngine::poll) t.messages_done_after = polled_done_after_;
  region_done(counters::Region::compute);

  halo_.finish(solver_.halo_field());
  record_halo_times(t);
  region_done(counters::Region::halo);

  const double s0 = omp_get_wtime();
  for (const Box& shell : solver_.shell_regions()) solver_.compute(shell);
  t.shell = omp_get_wtime() - s0;
  region_done(counters::Region::compute);
  return t;
}

template class StepDriver<float>;
template class StepDriver<double>;

}  // namespace wave3d::app
