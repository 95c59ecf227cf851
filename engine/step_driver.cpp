#include "engine/step_driver.hpp"

#include <omp.h>

#include <stdexcept>
#include <string>

namespace wave3d::engine {

template <typename T>
StepDriver<T>::StepDriver(const ParallelSettings& parallel, WaveSolver<T>& solver, mpi::HaloExchange<T>* halo,
                          mpi::FoldedHaloExchange<T>* folded_halo, mpi::DeepHaloExchange<T>* deep,
                          mpi::ProgressThread* progress_thread)
    : parallel_(parallel),
      mode_(row_of(parallel.halo)),
      solver_(solver),
      halo_(halo),
      folded_halo_(folded_halo),
      deep_(deep),
      progress_thread_(progress_thread) {
  if (parallel.progress == ProgressEngine::thread && progress_thread == nullptr)
    throw std::logic_error("StepDriver: progress = thread needs a progress thread");
  if (folded_halo != nullptr && solver.folded_halo_field() == nullptr)
    throw std::logic_error("StepDriver: an exchange of folded fields needs a solver with folded levels");
  // Thread 0 is the thread that initialised MPI, so polling from it is allowed at any thread level.
  poll_between_blocks_ = [this] {
    if (messages_done_) return;
    messages_done_ = test_messages_();
    if (messages_done_) polled_done_after_ = omp_get_wtime() - posted_at_;
  };
  // The velocity never changes: its halo is exchanged once, as deep as any sweep reads it.
  if (deep_ != nullptr) {
    deep_->exchange({{&solver_.velocity_halo_field(), solver_.halo_width()}});
    solver_.velocity_halo_received();
  }
}

template <typename T>
StepPhaseTimes StepDriver<T>::step() {
  if (halo_ == nullptr && folded_halo_ == nullptr)
    throw std::logic_error("StepDriver::step: built without a halo exchange for single steps");
  const StepPhaseTimes t = (this->*mode_.single_step)();
  solver_.advance();
  return t;
}

template <typename T>
StepPhaseTimes StepDriver<T>::advance(int steps) {
  if (deep_ != nullptr) return sweep(steps);
  if (steps != 1) throw std::logic_error("StepDriver::advance: several steps need a deep halo exchange");
  return step();
}

// What each halo mode runs, one row per mode: a single step and a temporally blocked sweep. A mode
// added to HaloMode needs its row here (and its meaning in computes_during_exchange); a mode without a
// row is refused at construction, never run as another.
template <typename T>
struct StepDriver<T>::ModeRow {
  HaloMode mode;
  StepPhaseTimes (StepDriver::*single_step)();
  StepPhaseTimes (StepDriver::*sweep)(int steps);
};

template <typename T>
const typename StepDriver<T>::ModeRow& StepDriver<T>::row_of(HaloMode mode) {
  static constexpr ModeRow kRows[] = {
      {HaloMode::bulk, &StepDriver::bulk_step, &StepDriver::bulk_sweep},
      {HaloMode::overlap, &StepDriver::overlap_step, &StepDriver::overlap_sweep},
  };
  for (const ModeRow& row : kRows)
    if (row.mode == mode) return row;
  throw std::logic_error("StepDriver: no row for halo mode " + std::to_string(static_cast<int>(mode)));
}

template <typename T>
StepPhaseTimes StepDriver<T>::sweep(int steps) {
  if (deep_ == nullptr) throw std::logic_error("StepDriver::sweep: built without a deep halo exchange");
  if (parallel_.temporal_halo == TemporalHalo::split)
    return split_sweep(steps, computes_during_exchange(parallel_.halo));
  return (this->*mode_.sweep)(steps);
}

// With folded levels, copying the sent cells out of them is part of packing, and the halo into them
// part of unpacking.
template <typename T>
void StepDriver<T>::count_folded_copies(StepPhaseTimes& t, double copied_out, double copied_in) {
  t.pack += copied_out;
  t.unpack += copied_in;
}

template <typename T>
void StepDriver<T>::record_halo_times(StepPhaseTimes& t, const mpi::HaloTimes& h) {
  t.pack = h.pack;
  t.wait = h.wait;
  t.unpack = h.unpack;
}

template <typename T>
const std::function<void()>* StepDriver<T>::start_progress(std::function<bool()> test) {
  test_messages_ = std::move(test);
  posted_at_ = omp_get_wtime();
  if (parallel_.progress == ProgressEngine::thread) {
    progress_thread_->start(test_messages_);
  } else if (parallel_.progress == ProgressEngine::poll) {
    messages_done_ = false;
    polled_done_after_.reset();
    return &poll_between_blocks_;
  }
  return nullptr;
}

template <typename T>
void StepDriver<T>::stop_progress(StepPhaseTimes& t) {
  if (parallel_.progress == ProgressEngine::thread) t.messages_done_after = progress_thread_->stop();
  if (parallel_.progress == ProgressEngine::poll) t.messages_done_after = polled_done_after_;
}

// A single step's exchange: of the folded level itself, or of the plain field with the folded
// level's cells copied out before and its halo in after (the faces complete at start, which the
// interior reads, right away).
template <typename T>
void StepDriver<T>::start_step_halo() {
  if (folded_halo_ != nullptr) {
    folded_halo_->start(*solver_.folded_halo_field());
    return;
  }
  const double copying_out = omp_get_wtime();
  Field<T>& field = solver_.halo_field_to_send();
  const double copied_out = omp_get_wtime();
  halo_->start(field);
  const double copying_in = omp_get_wtime();
  solver_.halo_received(false);
  step_copies_ = {copied_out - copying_out, omp_get_wtime() - copying_in};
}

template <typename T>
bool StepDriver<T>::step_halo_done() {
  return folded_halo_ != nullptr ? folded_halo_->test() : halo_->test();
}

template <typename T>
void StepDriver<T>::finish_step_halo(StepPhaseTimes& t) {
  if (folded_halo_ != nullptr) {
    folded_halo_->finish(*solver_.folded_halo_field());
    record_halo_times(t, folded_halo_->last_times());
    return;
  }
  halo_->finish(solver_.halo_field());
  record_halo_times(t, halo_->last_times());
  const double in0 = omp_get_wtime();
  solver_.halo_received(true);
  count_folded_copies(t, step_copies_[0], step_copies_[1] + omp_get_wtime() - in0);
}

template <typename T>
StepPhaseTimes StepDriver<T>::bulk_step() {
  StepPhaseTimes t;
  start_step_halo();
  finish_step_halo(t);
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
  start_step_halo();
  region_done(counters::Region::halo);
  const std::function<void()>* hook = start_progress([this] { return step_halo_done(); });
  solver_.compute(solver_.interior_region(), hook);
  t.interior = omp_get_wtime() - posted_at_;
  stop_progress(t);
  region_done(counters::Region::compute);

  finish_step_halo(t);
  region_done(counters::Region::halo);

  const double s0 = omp_get_wtime();
  for (const Box& shell : solver_.shell_regions()) solver_.compute(shell);
  t.shell = omp_get_wtime() - s0;
  region_done(counters::Region::compute);
  return t;
}

// The current level `steps` radii deep, the previous one a radius less (level 1 reads it only at
// the points it computes); nothing for a subdomain without neighbours, whose fields have no deep halo.
// Each with the depth the inside of an overlapped sweep leaves unwritten, which may travel straight
// from the field.
template <typename T>
std::vector<typename mpi::DeepHaloExchange<T>::Slab> StepDriver<T>::sweep_slabs(int steps) {
  if (!any_face(deep_->faces_with_neighbours())) return {};
  const int r = solver_.kernel().radius();
  const auto slab = [&](Field<T>& f, int width) {
    return typename mpi::DeepHaloExchange<T>::Slab{&f, width, solver_.depth_unchanged_inside(steps, f)};
  };
  return {slab(solver_.halo_field(), steps * r), slab(solver_.older_halo_field(), (steps - 1) * r)};
}

template <typename T>
StepPhaseTimes StepDriver<T>::bulk_sweep(int steps) {
  StepPhaseTimes t;
  const double out0 = omp_get_wtime();
  solver_.sweep_halo_to_send(steps);
  const double copied_out = omp_get_wtime() - out0;
  deep_->exchange(sweep_slabs(steps));
  record_halo_times(t, deep_->last_times());
  const double in0 = omp_get_wtime();
  solver_.sweep_halo_received(steps, false);
  solver_.sweep_halo_received(steps, true);
  count_folded_copies(t, copied_out, omp_get_wtime() - in0);
  region_done(counters::Region::halo);
  const double c0 = omp_get_wtime();
  solver_.sweep(steps);
  t.interior = omp_get_wtime() - c0;
  region_done(counters::Region::compute);
  return t;
}

template <typename T>
StepPhaseTimes StepDriver<T>::overlap_sweep(int steps) {
  StepPhaseTimes t;
  const double out0 = omp_get_wtime();
  solver_.sweep_halo_to_send(steps);
  const double copied_out = omp_get_wtime() - out0;
  deep_->start(sweep_slabs(steps));
  const double in0 = omp_get_wtime();
  solver_.sweep_halo_received(steps, false);  // the faces complete when start returns, which the inside reads
  double copied_in = omp_get_wtime() - in0;
  region_done(counters::Region::halo);
  const std::function<void()>* hook = start_progress([this] { return deep_->test(); });
  solver_.sweep_inside(steps, hook);
  t.interior = omp_get_wtime() - posted_at_;
  stop_progress(t);
  region_done(counters::Region::compute);

  deep_->finish();
  record_halo_times(t, deep_->last_times());
  const double in1 = omp_get_wtime();
  solver_.sweep_halo_received(steps, true);
  copied_in += omp_get_wtime() - in1;
  count_folded_copies(t, copied_out, copied_in);
  region_done(counters::Region::halo);

  const double s0 = omp_get_wtime();
  solver_.sweep_rest(steps);
  t.shell = omp_get_wtime() - s0;
  region_done(counters::Region::compute);
  return t;
}

// Split tiling: the current level a radius deep before the inside (bulk) or while it is computed
// (overlap; the inside then keeps a radius further from the faces), then the rest level by level,
// each level after the first with an exchange of the level before it. The exchanges travel
// straight from the fields: what they send is not written until they are done. With an exchange of
// folded fields they fill the folded levels themselves; otherwise the folded levels' cells go
// through the plain fields (WaveSolver::sweep_halo_to_send and split_sweep_rest copy them).
template <typename T>
StepPhaseTimes StepDriver<T>::split_sweep(int steps, bool overlap) {
  StepPhaseTimes t;
  const auto add_halo_times = [&t](const mpi::HaloTimes& h) {
    t.pack += h.pack;
    t.wait += h.wait;
    t.unpack += h.unpack;
  };
  const int r = solver_.kernel().radius();
  // One level's exchange a radius deep, of the folded level if given, else of the plain field.
  FoldedField<T>* folded_in_flight = nullptr;
  const auto start_level = [&](Field<T>* plain, FoldedField<T>* folded) {
    if (folded != nullptr) folded_halo_->start(*folded);
    else deep_->start({{plain, r, r}});
    folded_in_flight = folded;
  };
  const auto level_done = [this] { return folded_halo_ != nullptr ? folded_halo_->test() : deep_->test(); };
  const auto finish_level = [&] {
    if (folded_in_flight != nullptr) {
      folded_halo_->finish(*folded_in_flight);
      add_halo_times(folded_halo_->last_times());
    } else {
      deep_->finish();
      add_halo_times(deep_->last_times());
    }
  };
  const auto exchange_level = [&](Field<T>* plain, FoldedField<T>* folded) {
    if (folded == nullptr) {
      deep_->exchange({{plain, r, r}});
      add_halo_times(deep_->last_times());
      return;
    }
    start_level(plain, folded);
    finish_level();
  };

  FoldedField<T>* const current = folded_halo_ != nullptr ? solver_.folded_halo_field() : nullptr;
  const double out0 = omp_get_wtime();
  if (current == nullptr) solver_.sweep_halo_to_send(steps);
  const double copied_out = omp_get_wtime() - out0;
  double copied_in = 0;
  const auto copy_in = [&](bool in_flight) {
    if (current != nullptr) return;
    const double in0 = omp_get_wtime();
    solver_.sweep_halo_received(steps, in_flight);
    copied_in += omp_get_wtime() - in0;
  };
  if (overlap) {
    start_level(&solver_.halo_field(), current);
    copy_in(false);
    region_done(counters::Region::halo);
    const std::function<void()>* hook = start_progress(level_done);
    solver_.split_sweep_inside(steps, false, hook);
    t.interior = omp_get_wtime() - posted_at_;
    stop_progress(t);
    region_done(counters::Region::compute);
    finish_level();
    copy_in(true);
    region_done(counters::Region::halo);
  } else {
    exchange_level(&solver_.halo_field(), current);
    copy_in(false);
    copy_in(true);
    region_done(counters::Region::halo);
    const double c0 = omp_get_wtime();
    solver_.split_sweep_inside(steps, true);
    t.interior = omp_get_wtime() - c0;
    region_done(counters::Region::compute);
  }

  // The rest, level by level: in overlap mode each exchange of the level before travels while the
  // points that need none of it are computed.
  const double s0 = omp_get_wtime();
  double exchanging = 0;
  const auto timed = [&exchanging](auto&& part) {
    const double e0 = omp_get_wtime();
    part();
    exchanging += omp_get_wtime() - e0;
  };
  typename WaveSolver<T>::LevelExchange exchange;
  if (overlap) {
    exchange.start = [&](Field<T>& level) {
      timed([&] { start_level(&level, nullptr); });
      start_progress(level_done);
    };
    if (current != nullptr)
      exchange.start_folded = [&](FoldedField<T>& level) {
        timed([&] { start_level(nullptr, &level); });
        start_progress(level_done);
      };
    exchange.between_blocks = parallel_.progress == ProgressEngine::poll ? &poll_between_blocks_ : nullptr;
    exchange.finish = [&] {
      if (parallel_.progress == ProgressEngine::thread) progress_thread_->stop();
      timed(finish_level);
    };
  } else {
    exchange.start = [&](Field<T>& level) { timed([&] { exchange_level(&level, nullptr); }); };
    if (current != nullptr)
      exchange.start_folded = [&](FoldedField<T>& level) { timed([&] { exchange_level(nullptr, &level); }); };
    exchange.finish = [] {};
  }
  solver_.split_sweep_rest(steps, !overlap, exchange);
  t.shell = omp_get_wtime() - s0 - exchanging;
  count_folded_copies(t, copied_out, copied_in);
  region_done(counters::Region::compute);
  return t;
}

template class StepDriver<float>;
template class StepDriver<double>;

}  // namespace wave3d::engine
