#pragma once
// One time step of a subdomain with its halo exchange, in the mode the config asks for:
//   bulk:              exchange(prev) -> compute(update region)
//   overlap:           start(prev) -> compute(interior) -> finish(prev) -> compute(shell)
//   overlap + thread:  as overlap, with the progress thread calling MPI_Testall during the interior
//   overlap + poll:    as overlap, with OpenMP thread 0 calling MPI_Testall between its blocks
// and the time each part took. With temporal blocking across ranks (blocking.steps > 1), sweep()
// takes several steps at once, with one exchange of a deep halo of both time levels before them:
//   bulk:              exchange(prev, next) -> sweep(extended region)
//   overlap (+ thread or poll as above):
//                      start(prev, next) -> sweep inside -> finish -> sweep the rest
// With split tiling (parallel.temporal_halo = "split") nothing beyond the owned points is computed:
//   bulk:              exchange(prev, R deep) -> sweep inside -> per level: [exchange(level before)] -> rest
//   overlap:           start(prev, R deep) -> sweep inside -> finish -> per level: [start(level before)
//                      -> the rest a radius or more from the halo faces -> finish] -> the rest nearer
// With the folded kernel, a single step's exchange fills the current folded level itself where the
// decomposition's cuts lie on folds (mpi/folded_halo_exchange.hpp); elsewhere the cells it sends are
// copied out of the folded levels before it starts and the halo it fills into them after
// (WaveSolver::halo_field_to_send), as for the exchanges of sweeps.
// Each mode is one row of a table in step_driver.cpp. This is where the node-level solver and the MPI
// layer meet.
#include <array>
#include <functional>
#include <memory>
#include <optional>

#include "config/run_config.hpp"
#include "counters/region_counters.hpp"
#include "mpi/deep_halo_exchange.hpp"
#include "mpi/folded_halo_exchange.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/progress_thread.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d::engine {

struct StepPhaseTimes {
  double pack = 0, wait = 0, unpack = 0;  // the halo exchange's exposed parts
  double interior = 0, shell = 0;         // compute; in bulk mode all of it counts as interior
  // Seconds from posting the messages until they were seen complete, where known (progress modes).
  std::optional<double> messages_done_after;
};

template <typename T>
class StepDriver {
 public:
  // progress_thread may be null unless config.parallel.progress is thread. Single steps need
  // `halo` or, where the solver has folded levels, `folded_halo`; sweeps `deep` (which must be as deep
  // as the solver's halo); the others may be null. With `deep`, construction exchanges the velocity's
  // halo (collective).
  StepDriver(const ParallelSettings& parallel, WaveSolver<T>& solver, mpi::HaloExchange<T>* halo,
             mpi::FoldedHaloExchange<T>* folded_halo, mpi::DeepHaloExchange<T>* deep,
             mpi::ProgressThread* progress_thread);

  StepPhaseTimes step();
  // `steps` time steps in one sweep; the times are the sweep's, for all its steps.
  StepPhaseTimes sweep(int steps);
  // `steps` time steps as the driver was built for: one sweep with a deep halo exchange, else single
  // steps (then `steps` must be 1).
  StepPhaseTimes advance(int steps);

  // Event counters read at the boundaries of the compute and halo regions of each step (outside the
  // timed phases); null = none. The caller opens and closes the step region around step().
  void count_regions_with(counters::RegionCounters* regions) { regions_ = regions; }

 private:
  struct ModeRow;
  static const ModeRow& row_of(HaloMode mode);
  StepPhaseTimes bulk_step();
  StepPhaseTimes overlap_step();
  // A single step's exchange in parts (see the .cpp).
  void start_step_halo();
  bool step_halo_done();
  void finish_step_halo(StepPhaseTimes& t);
  StepPhaseTimes bulk_sweep(int steps);
  StepPhaseTimes overlap_sweep(int steps);
  StepPhaseTimes split_sweep(int steps, bool overlap);  // split tiling, see the top
  std::vector<typename mpi::DeepHaloExchange<T>::Slab> sweep_slabs(int steps);
  // Starts the progress engine on `test` for the compute that overlaps it; the poll hook, if polling.
  const std::function<void()>* start_progress(std::function<bool()> test);
  void stop_progress(StepPhaseTimes& t);
  static void record_halo_times(StepPhaseTimes& t, const mpi::HaloTimes& h);
  static void count_folded_copies(StepPhaseTimes& t, double copied_out, double copied_in);
  void region_done(counters::Region region) {
    if (regions_ != nullptr) regions_->end_of(region);
  }

  ParallelSettings parallel_;
  const ModeRow& mode_;
  WaveSolver<T>& solver_;
  mpi::HaloExchange<T>* halo_;
  mpi::FoldedHaloExchange<T>* folded_halo_;
  mpi::DeepHaloExchange<T>* deep_;
  mpi::ProgressThread* progress_thread_;
  std::function<bool()> test_messages_;  // of the exchange in flight
  std::function<void()> poll_between_blocks_;
  bool messages_done_ = false;   // poll mode: thread 0 saw test() return true
  double posted_at_ = 0;
  std::optional<double> polled_done_after_;
  counters::RegionCounters* regions_ = nullptr;
  std::array<double, 2> step_copies_{};  // seconds copying out of and into the folded level so far this step
};

extern template class StepDriver<float>;
extern template class StepDriver<double>;

}  // namespace wave3d::engine
