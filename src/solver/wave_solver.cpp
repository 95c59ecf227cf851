#include "solver/wave_solver.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "field/first_touch.hpp"
#include "field/memory_placement.hpp"
#include "init/initial_condition.hpp"
#include "stencil/coefficients.hpp"
#include "verify/field_checks.hpp"

namespace wave3d {

KernelVariant kernel_variant(KernelChoice choice, int radius) {
  switch (choice) {
    case KernelChoice::reference: return KernelVariant::reference;
    case KernelChoice::blocked: return KernelVariant::blocked;
    case KernelChoice::jammed: return KernelVariant::jammed;
    case KernelChoice::columns: return KernelVariant::columns;
    case KernelChoice::folded: return KernelVariant::folded;
    case KernelChoice::automatic: break;
  }
  // The kernel a run takes for "auto" without a size search, and the block tuner's first candidate
  // when it searches (it then measures the blocked rows too: kernel_candidates in block_tuner.hpp).
  // Measured with `wave3d bench --kernel` (256^3, 2 threads, interleaved runs): where the z window
  // fits the registers (AVX-512, AMD Zen 4) the z columns beat the blocked rows by 1.1x at R = 4 and
  // 1.5-1.6x at R = 8. At R = 1 and 2 one column at a time lost to the rows by 1.1-1.4x or tied with
  // them; two at once (columns_at_once) beat them (`wave3d run`, AMD Zen 5, 2 threads: 1.19-1.22x at
  // R = 1, 1.35-1.38x at R = 2). Where the window spills, blocked rows win (AVX2, AMD Zen 1: faster
  // than jammed rows at every radius, 1.6x at R = 1).
  const bool columns_win = radius >= 4 || columns_at_once(radius) > 1;
  return columns_win && column_window_fits_registers(radius) ? KernelVariant::columns : KernelVariant::blocked;
}

KernelChoice kernel_choice_for(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::reference: return KernelChoice::reference;
    case KernelVariant::blocked: return KernelChoice::blocked;
    case KernelVariant::jammed: return KernelChoice::jammed;
    case KernelVariant::columns: return KernelChoice::columns;
    case KernelVariant::folded: return KernelChoice::folded;
  }
  return KernelChoice::automatic;
}

int sweep_halo_width(const RunConfig& config) {
  // "auto", which the run resolves before it builds fields (engine/blocking_tuning.hpp), counts as deep.
  const bool deep = config.blocking.steps > 1 && config.parallel.temporal_halo != TemporalHalo::split;
  return deep ? config.blocking.steps * config.grid.radius : config.grid.radius;
}

namespace {

int halo_width_for(const RunConfig& config, const FaceFlags& halo_faces) {
  return any_face(halo_faces) ? sweep_halo_width(config) : config.grid.radius;
}

}  // namespace

template <typename T>
WaveSolver<T>::WaveSolver(const RunConfig& config, const Box& owned, std::array<bool, 3> halo_in_flight,
                          const FaceFlags& halo_faces)
    : config_(config),
      regions_(update_regions(config.grid, owned, halo_in_flight)),
      halo_faces_(halo_faces),
      faces_in_flight_(faces_on(halo_faces, halo_in_flight)),
      prev_(owned, halo_width_for(config, halo_faces), config.memory.huge_pages, first_updated_x(config.grid, owned)),
      next_(owned, halo_width_for(config, halo_faces), config.memory.huge_pages, first_updated_x(config.grid, owned)),
      vel_(owned, halo_width_for(config, halo_faces), config.memory.huge_pages, first_updated_x(config.grid, owned)),
      kernel_(second_derivative_weights(config.grid.radius), config.blocking, kernel_variant(config.kernel, config.grid.radius)) {
  // The policy must be set before the first write: Linux places a page when it is first touched.
  std::optional<HwlocTopology> topology;
  const auto place = [&](void* data, std::size_t bytes) {
    if (config.memory.policy != MemoryPolicy::interleave && config.memory.policy != MemoryPolicy::node) return;
    if (!topology) topology.emplace();
    if (auto notice = place_memory(data, bytes, config.memory, *topology)) placement_notices_.push_back(*notice);
  };
  for (Field<T>* f : {&prev_, &next_, &vel_}) place(f->data(), f->allocated_bytes());
  // The reference kernel computes everything on the calling thread, so that thread is the one whose
  // first touch puts the pages next to the computation.
  const InitPolicy order =
      kernel_.variant() == KernelVariant::reference ? InitPolicy::serial : touch_order(config.memory.policy);
  const int steps = config.blocking.steps;
  const bool folded = kernel_.variant() == KernelVariant::folded;
  // Temporal blocking: each thread computes the rows of its tiles over every plane (sweep_tiles), cut
  // on the first rows of y folds for the folded layout (tile_row_grid; the folds start a whole
  // number of folds from the owned box's first row).
  const std::int64_t tile_rows = config.blocking.effective(1, regions_.update.extent(1));
  const LevelBoxes swept =
      split_tiling() ? split_inside_boxes(!computes_during_exchange(config.parallel.halo)) : swept_boxes(steps);
  const RowGrid row_grid = folded ? RowGrid{owned.lo[1], FoldedField<T>::kFoldY} : RowGrid{};
  const std::function<std::vector<std::int64_t>(int)> thread_rows = [=, this](int threads) {
    return temporal_thread_rows(swept, steps, config_.grid.radius, tile_rows, threads, row_grid);
  };
  if (steps > 1 && order == InitPolicy::first_touch) {
    for (Field<T>* f : {&prev_, &next_, &vel_}) first_touch_rows(*f, regions_.update, thread_rows);
  } else {
    const std::vector<Box> sweeps = kernel_sweeps(regions_, config.parallel.halo);
    for (Field<T>* f : {&prev_, &next_, &vel_}) first_touch(*f, order, kernel_.blocking(), sweeps);
  }
  apply_initial_condition(config.initial, config.grid, config.physics, config.blocking, prev_, next_, vel_);
  if (!folded) return;
  const auto level = [&] { return FoldedField<T>(owned, prev_.halo(), config.memory.huge_pages); };
  folded_.emplace(FoldedLevels{level(), level(), level()});
  // The kernel's first sweep of a step holds most of the points (the interior in overlap mode).
  const Box computed = kernel_sweeps(regions_, config.parallel.halo).front();
  for (FoldedField<T>* f : {&folded_->prev, &folded_->next, &folded_->vel}) {
    place(f->data(), f->allocated_bytes());
    if (steps > 1 && order == InitPolicy::first_touch) f->first_touch_rows(thread_rows);
    else f->first_touch(order, computed);
  }
  folded_->prev.copy_from(prev_, prev_.with_halo());
  folded_->next.copy_from(next_, next_.with_halo());
  folded_->vel.copy_from(vel_, vel_.with_halo());
}

template <typename T>
std::vector<Box> WaveSolver<T>::halo_slabs(const std::array<bool, 3>& axes, bool ghost, int depth) const {
  const Box& owned = prev_.owned();
  // A ghost slab spans the edges and corners beyond the other halo faces too, which deep halos fill.
  const Box across = ghost ? grown_at(owned, halo_faces_, depth) : owned;
  std::vector<Box> slabs;
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t side = 0; side < 2; ++side) {
      if (!axes[a] || !halo_faces_[a][side] || depth <= 0) continue;
      Box slab = across;
      const std::int64_t face = side == 0 ? owned.lo[a] : owned.hi[a];
      const bool below = (side == 0) == ghost;  // the slab lies below the face
      slab.lo[a] = below ? face - depth : face;
      slab.hi[a] = below ? face : face + depth;
      slabs.push_back(slab);
    }
  return slabs;
}

template <typename T>
std::array<bool, 3> WaveSolver<T>::axes_arriving(bool in_flight) const {
  const std::array<bool, 3> flying = axes_of(faces_in_flight_);
  return {flying[0] == in_flight, flying[1] == in_flight, flying[2] == in_flight};
}

template <typename T>
Field<T>& WaveSolver<T>::halo_field_to_send() {
  if (folded_)
    for (const Box& slab : halo_slabs({true, true, true}, false, config_.grid.radius)) folded_->prev.copy_to(prev_, slab);
  return prev_;
}

template <typename T>
void WaveSolver<T>::halo_received(bool in_flight) {
  if (!folded_) return;
  for (const Box& slab : halo_slabs(axes_arriving(in_flight), true, config_.grid.radius))
    folded_->prev.copy_from(prev_, slab);
}

template <typename T>
std::array<int, 2> WaveSolver<T>::sweep_halo_depths(int steps) const {
  const int r = config_.grid.radius;
  if (split_tiling()) return {r, 0};
  return {steps * r, (steps - 1) * r};
}

template <typename T>
void WaveSolver<T>::sweep_halo_to_send(int steps) {
  if (!folded_) return;
  const auto [current, previous] = sweep_halo_depths(steps);
  for (const Box& slab : halo_slabs({true, true, true}, false, current)) folded_->prev.copy_to(prev_, slab);
  for (const Box& slab : halo_slabs({true, true, true}, false, previous)) folded_->next.copy_to(next_, slab);
}

template <typename T>
void WaveSolver<T>::sweep_halo_received(int steps, bool in_flight) {
  if (!folded_) return;
  const auto [current, previous] = sweep_halo_depths(steps);
  for (const Box& slab : halo_slabs(axes_arriving(in_flight), true, current)) folded_->prev.copy_from(prev_, slab);
  for (const Box& slab : halo_slabs(axes_arriving(in_flight), true, previous)) folded_->next.copy_from(next_, slab);
}

template <typename T>
void WaveSolver<T>::velocity_halo_received() {
  if (!folded_) return;
  for (const Box& slab : halo_slabs({true, true, true}, true, vel_.halo())) folded_->vel.copy_from(vel_, slab);
}

template <typename T>
void WaveSolver<T>::copy_out_of_folded() {
  if (!folded_ || !plain_behind_) return;
  folded_->prev.copy_to(prev_, prev_.owned());
  folded_->next.copy_to(next_, next_.owned());
  plain_behind_ = false;
}

template <typename T>
const Field<T>& WaveSolver<T>::current() {
  copy_out_of_folded();
  return prev_;
}

template <typename T>
const Field<T>& WaveSolver<T>::previous() {
  copy_out_of_folded();
  return next_;
}

template <typename T>
bool WaveSolver<T>::current_is_finite(const Box& box) const {
  return folded_ ? folded_->prev.all_finite(box) : all_finite(prev_, box);
}

template <typename T>
void WaveSolver<T>::compute(const Box& region, const std::function<void()>* between_blocks) {
  if (folded_) {
    kernel_.update(folded_->prev, folded_->next, folded_->vel, region, between_blocks);
    plain_behind_ = true;
    return;
  }
  kernel_.update(prev_, next_, vel_, region, between_blocks);
}

// With folded levels the plain prev_ and next_ stay where they are: prev_ is always the one the
// exchange fills and the current level is copied out into.
template <typename T>
void WaveSolver<T>::advance() {
  if (folded_) {
    inject_source(config_.initial, config_.physics, folded_->next, folded_->vel, steps_done_ + 1);
    std::swap(folded_->prev, folded_->next);
  } else {
    inject_source(config_.initial, config_.physics, next_, vel_, steps_done_ + 1);
    swap(prev_, next_);
  }
  ++steps_done_;
}

template <typename T>
void WaveSolver<T>::step(const HaloUpdate& update_halo) {
  update_halo(halo_field_to_send());
  halo_received(false);
  halo_received(true);
  compute(regions_.update);
  advance();
}

template <typename T>
LevelBoxes WaveSolver<T>::swept_boxes(int steps) const {
  const int r = config_.grid.radius;
  return {grown_at(regions_.update, halo_faces_, static_cast<std::int64_t>(steps - 1) * r), halo_faces_, r};
}

// Inside the faces in flight by steps - 1 radii (at least one) at level 1, a radius more at each
// later level, so that what a level reads lies on this side of them and no level writes the cells the
// exchange sends (the current level's steps radii near each face, the previous one's a radius less):
// those travel straight from the field, with no copy before the messages leave. Beyond the other halo
// faces as far as sweep() reaches.
template <typename T>
LevelBoxes WaveSolver<T>::inside_boxes(int steps) const {
  const int r = config_.grid.radius;
  FaceFlags copied = halo_faces_;
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t side = 0; side < 2; ++side) copied[a][side] = copied[a][side] && !faces_in_flight_[a][side];
  const Box beyond_copied = grown_at(regions_.update, copied, static_cast<std::int64_t>(steps - 1) * r);
  const std::int64_t margin = static_cast<std::int64_t>(std::max(1, steps - 1)) * r;
  return {grown_at(beyond_copied, faces_in_flight_, -margin), halo_faces_, r};
}

template <typename T>
template <typename F>
AfterLevel<F> WaveSolver<T>::source_term(const F& vel) const {
  return [this, &vel](F& level, const Box& box, int n) {
    inject_source_within(config_.initial, config_.physics, config_.grid, level, vel, steps_done_ + n, box);
  };
}

template <typename T>
template <typename Body>
void WaveSolver<T>::on_levels(Body&& body) {
  if (folded_) {
    body(folded_->prev, folded_->next, folded_->vel);
    plain_behind_ = true;
  } else {
    body(prev_, next_, vel_);
  }
}

template <typename T>
void WaveSolver<T>::sweep(int steps) {
  const std::int64_t tile_rows = config_.blocking.effective(1, regions_.update.extent(1));
  on_levels([&](auto& current, auto& previous, const auto& vel) {
    sweep_levels(kernel_, current, previous, vel, swept_boxes(steps), steps, tile_rows, source_term(vel),
                 &level_times_);
  });
  steps_done_ += steps;
}

template <typename T>
void WaveSolver<T>::sweep_inside(int steps, const std::function<void()>* between_pieces) {
  const std::int64_t tile_rows = config_.blocking.effective(1, regions_.update.extent(1));
  on_levels([&](auto& current, auto& previous, const auto& vel) {
    sweep_tiles(kernel_, current, previous, vel, inside_boxes(steps), steps, tile_rows, source_term(vel),
                between_pieces, &level_times_);
  });
}

template <typename T>
void WaveSolver<T>::sweep_rest(int steps) {
  const std::int64_t tile_rows = config_.blocking.effective(1, regions_.update.extent(1));
  on_levels([&](auto& current, auto& previous, const auto& vel) {
    sweep_shells(kernel_, current, previous, vel, swept_boxes(steps), inside_boxes(steps), steps, tile_rows,
                 source_term(vel), &level_times_);
    swap_after_levels(current, previous, steps);
  });
  steps_done_ += steps;
}

template <typename T>
LevelBoxes WaveSolver<T>::split_inside_boxes(bool halo_current) const {
  const int r = config_.grid.radius;
  return {grown_at(regions_.update, halo_faces_, halo_current ? 0 : -r), halo_faces_, r};
}

template <typename T>
void WaveSolver<T>::split_sweep_inside(int steps, bool halo_current, const std::function<void()>* between_pieces) {
  const std::int64_t tile_rows = config_.blocking.effective(1, regions_.update.extent(1));
  on_levels([&](auto& current, auto& previous, const auto& vel) {
    sweep_tiles(kernel_, current, previous, vel, split_inside_boxes(halo_current), steps, tile_rows,
                source_term(vel), between_pieces, &level_times_);
  });
}

// Level L of the rest reads level L - 1 a radius around it: on this side of the halo faces what
// the inside or the rest computed at that level, beyond them the neighbours' same level, which the
// exchange brings. It overwrites level L - 2 (in the other field), which only the point itself
// reads. What the inside computes at level L + 1 overwrites level L - 1 up to a radius from the rest
// of level L, so every level the rest reads is still there (split tiling, as between the threads'
// tiles). From level 2 on the inside stays at least a radius from the halo faces, so the rest
// splits into the points that read no halo cell, computed while the exchange is in flight, and the
// slabs a radius thick along the halo faces, computed after it. With folded levels the exchange
// fills the folded level itself (LevelExchange::start_folded) or travels through the plain field of
// the same parity: the owned cells it sends copied out before it starts, the halo it brings copied in
// once it is done.
template <typename T>
void WaveSolver<T>::split_sweep_rest(int steps, bool halo_current, const LevelExchange& exchange) {
  const LevelBoxes inside = split_inside_boxes(halo_current);
  const Box& all = regions_.update;
  const Box reads_no_halo = grown_at(all, halo_faces_, -config_.grid.radius);
  const int r = config_.grid.radius;
  on_levels([&](auto& current, auto& previous, const auto& vel) {
    const auto inject = source_term(vel);
    sweep_level_outside(kernel_, current, previous, vel, all, inside.at(1), 1, inject, &level_times_);
    for (int level = 2; level <= steps; ++level) {
      const bool in_current = level % 2 == 1;  // where level - 1 is
      Field<T>& plain = in_current ? prev_ : next_;
      FoldedField<T>* const held = folded_ ? (in_current ? &folded_->prev : &folded_->next) : nullptr;
      const bool through_plain = held != nullptr && !exchange.start_folded;
      if (through_plain)
        for (const Box& slab : halo_slabs({true, true, true}, false, r)) held->copy_to(plain, slab);
      if (held != nullptr && exchange.start_folded) exchange.start_folded(*held);
      else exchange.start(plain);
      sweep_level_outside(kernel_, current, previous, vel, reads_no_halo, inside.at(level), level, inject,
                          &level_times_, exchange.between_blocks);
      exchange.finish();
      if (through_plain)
        for (const Box& slab : halo_slabs({true, true, true}, true, r)) held->copy_from(plain, slab);
      sweep_level_outside(kernel_, current, previous, vel, all, reads_no_halo, level, inject, &level_times_);
    }
    swap_after_levels(current, previous, steps);
  });
  steps_done_ += steps;
}

template <typename T>
int WaveSolver<T>::depth_unchanged_inside(int steps, const Field<T>& field) const {
  if (&field != &prev_ && &field != &next_) throw std::logic_error("WaveSolver::depth_unchanged_inside: not a time level");
  // Levels are computed in place: odd ones into next_, even ones into prev_ (temporal_sweep.hpp).
  const int first_level = &field == &next_ ? 1 : 2;
  std::int64_t depth = field.halo();
  if (first_level > steps) return static_cast<int>(depth);
  const Box written = inside_boxes(steps).at(first_level);
  const Box& owned = field.owned();
  for (std::size_t a = 0; a < 3; ++a) {
    if (faces_in_flight_[a][0]) depth = std::min(depth, written.lo[a] - owned.lo[a]);
    if (faces_in_flight_[a][1]) depth = std::min(depth, owned.hi[a] - written.hi[a]);
  }
  return static_cast<int>(std::max<std::int64_t>(depth, 0));
}

template <typename T>
void WaveSolver<T>::restore(int steps_done, const std::function<void(Field<T>& current, Field<T>& previous)>& load) {
  load(prev_, next_);
  steps_done_ = steps_done;
  if (!folded_) return;
  folded_->prev.copy_from(prev_, prev_.with_halo());
  folded_->next.copy_from(next_, next_.with_halo());
  plain_behind_ = false;
}

template <typename T>
std::vector<PageHistogram> WaveSolver<T>::page_histograms() const {
  if (folded_) {
    const auto pages = [](const FoldedField<T>& f) { return locate_pages(f.data(), f.allocated_bytes()); };
    return {pages(folded_->prev), pages(folded_->next), pages(folded_->vel)};
  }
  return {locate_field_pages(prev_), locate_field_pages(next_), locate_field_pages(vel_)};
}

template <typename T>
std::size_t WaveSolver<T>::field_bytes() const {
  std::size_t bytes = prev_.allocated_bytes() + next_.allocated_bytes() + vel_.allocated_bytes();
  if (folded_) bytes += folded_->prev.allocated_bytes() + folded_->next.allocated_bytes() + folded_->vel.allocated_bytes();
  return bytes;
}

template class WaveSolver<float>;
template class WaveSolver<double>;

}  // namespace wave3d
