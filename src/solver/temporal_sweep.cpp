#include "solver/temporal_sweep.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "stencil/block_loop.hpp"
#include "stencil/folded_kernel.hpp"

namespace wave3d {
namespace {

// How the wave front of a sweep walks z: at front position p, level L computes the planes
// [p - (L-1) lag, p - (L-1) lag + step) of its rows, the positions starting on the z grid
// (base + n * align). Level L reads level L-1 up to plane p - (L-1) lag + step - 1 + R, which the
// same position computed just before as long as lag >= R, and overwrites level L-2 below
// p - (L-1) lag + step, which level L-1 no longer reads (its next step reads from
// p + step - (L-2) lag - R on, no lower for lag >= R).
struct FrontGeometry {
  std::int64_t lag = 1, step = 1, base = 0, align = 1;
};

// Plain fields: a lag of one radius; one plane per step for kernels that sweep rows plane by plane,
// a z block for the column kernel, whose columns need more than one plane to march along.
template <typename T>
FrontGeometry front_geometry(const Kernel<T>& kernel, const Field<T>&) {
  std::int64_t step = 1;
  if (kernel.variant() == KernelVariant::columns) {
    const std::int64_t z_block = kernel.blocking().size[2];
    step = z_block > 0 ? z_block : 16;
  }
  return {kernel.radius(), step, 0, 1};
}

// Folded fields: whole z folds everywhere (the lag the radius rounded up to folds, positions on the
// field's folds), so that no fold is computed in part at two positions, and as many folds per step as
// the kernel computes at once.
template <typename T>
FrontGeometry front_geometry(const Kernel<T>& kernel, const FoldedField<T>& field) {
  constexpr std::int64_t fold = FoldedField<T>::kFoldZ;
  const std::int64_t lag = (kernel.radius() + fold - 1) / fold * fold;
  return {lag, fold * kFoldedZFoldsPerFrontStep, field.held().lo[2], fold};
}

// The front positions of a sweep, the same for every piece.
struct FrontRange {
  std::int64_t first = 0, end = 0, step = 1, lag = 1;
  std::int64_t steps() const { return end > first ? (end - first + step - 1) / step : 0; }
  std::int64_t position(std::int64_t n) const { return first + n * step; }
};

template <typename F>
FrontRange front_range(const KernelFor<F>& kernel, const F& field, const LevelBoxes& boxes, int levels) {
  const FrontGeometry g = front_geometry(kernel, field);
  FrontRange range{boxes.at(1).lo[2], boxes.at(1).lo[2], g.step, g.lag};
  for (int level = 1; level <= levels; ++level) {
    range.first = std::min(range.first, boxes.at(level).lo[2] + (level - 1) * g.lag);
    range.end = std::max(range.end, boxes.at(level).hi[2] + (level - 1) * g.lag);
  }
  // Down onto the z grid (floor division: the first position may lie below the grid's base).
  const std::int64_t d = range.first - g.base;
  range.first = g.base + (d >= 0 ? d / g.align : -((-d + g.align - 1) / g.align)) * g.align;
  return range;
}

// Every level of `piece` at front position `front` (FrontGeometry says why that order is safe).
// tally, if given, gets this thread's kernel time per level.
template <typename F>
void run_front_step(const KernelFor<F>& kernel, F& current, F& previous, const F& vel, const LevelBoxes& boxes,
                    int levels, const TemporalPiece& piece, std::int64_t front, const FrontRange& fronts,
                    const AfterLevel<F>& after_level, SweepLevelTimes* tally) {
  const int radius = kernel.radius();
  for (int level = 1; level <= levels; ++level) {
    const Box region = boxes.at(level);
    const std::int64_t lagged = front - (level - 1) * fronts.lag;
    const std::int64_t plane = std::max(lagged, region.lo[2]);
    const std::int64_t plane_end = std::min(lagged + fronts.step, region.hi[2]);
    if (plane >= plane_end) continue;
    auto [y_lo, y_hi] = piece.rows_at(level, radius);
    y_lo = std::max(y_lo, region.lo[1]);
    y_hi = std::min(y_hi, region.hi[1]);
    if (y_lo >= y_hi) continue;
    const Box box{{region.lo[0], y_lo, plane}, {region.hi[0], y_hi, plane_end}};
    // Odd levels go from current into previous, even ones back: the two buffers alternate.
    F& source = level % 2 == 1 ? current : previous;
    F& target = level % 2 == 1 ? previous : current;
    const double start = tally ? omp_get_wtime() : 0.0;
    kernel.update_on_this_thread(source, target, vel, box);
    if (tally) tally->add(level, omp_get_wtime() - start, box.volume());
    if (after_level) after_level(target, box, level);
  }
}

// How many front steps each tile's trapezoid has completed, for the borders that read around it.
class TileProgress {
 public:
  explicit TileProgress(std::size_t tiles) : done_(std::make_unique<std::atomic<std::int64_t>[]>(tiles)) {}
  void completed(std::size_t tile, std::int64_t steps) { done_[tile].store(steps, std::memory_order_release); }
  void wait_for(std::size_t tile, std::int64_t steps) const {
    // A short spin, then give the core away: with more threads than cores the awaited one may need it.
    for (int spins = 0; done_[tile].load(std::memory_order_acquire) < steps; ++spins)
      if (spins >= 64) std::this_thread::yield();
  }

 private:
  std::unique_ptr<std::atomic<std::int64_t>[]> done_;
};

TemporalPlan plan_from_cuts(const std::vector<std::int64_t>& cuts) {
  TemporalPlan plan;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    TemporalPiece tile;
    tile.lo = cuts[i];
    tile.hi = cuts[i + 1];
    tile.lo_step = i > 0 ? 1 : 0;  // the faces of the region stay put: they border no tile
    tile.hi_step = i + 2 < cuts.size() ? -1 : 0;
    plan.trapezoids.push_back(tile);
    if (i > 0) plan.borders.push_back({cuts[i], cuts[i], -1, 1});
  }
  return plan;
}

// The rows of each level L's box below row c + (L-1)R, summed over the levels: the work of the tiles
// below a cut at c together with their borders (at level L, tile i and the border above it compute
// the rows [c_i + (L-1)R, c_{i+1} + (L-1)R) of that level's box).
std::int64_t rows_below(const LevelBoxes& boxes, int levels, std::int64_t c) {
  std::int64_t rows = 0;
  for (int level = 1; level <= levels; ++level) {
    const Box box = boxes.at(level);
    const std::int64_t shifted = c + static_cast<std::int64_t>(level - 1) * boxes.radius;
    rows += std::clamp<std::int64_t>(shifted - box.lo[1], 0, std::max<std::int64_t>(0, box.extent(1)));
  }
  return rows;
}

// `tiles` tiles over the level-1 rows of `boxes`, each with the border above it computing the same
// number of rows summed over the levels (a thread's tiles then take as long as another's, though the
// last tile has no border above it), as near as cuts on `grid` come.
std::vector<std::int64_t> balanced_cuts(const LevelBoxes& boxes, int levels, std::int64_t tiles, RowGrid grid) {
  const std::int64_t lo = boxes.first.lo[1], hi = boxes.first.hi[1];
  const std::int64_t total = rows_below(boxes, levels, hi);
  std::vector<std::int64_t> cuts{lo};
  for (std::int64_t i = 1; i < tiles; ++i) {
    std::int64_t c = grid.at_or_above(cuts.back() + 1);
    while (c < hi && rows_below(boxes, levels, c) * tiles < i * total) c += grid.step;
    cuts.push_back(std::min(c, hi));
  }
  cuts.push_back(hi);
  return cuts;
}

// Whether no trapezoid of `plan` narrows past nothing by its last level (else the borders on either
// side of it would overlap).
bool trapezoids_hold(const TemporalPlan& plan, int levels, int radius) {
  return std::all_of(plan.trapezoids.begin(), plan.trapezoids.end(), [&](const TemporalPiece& t) {
    const auto [lo, hi] = t.rows_at(levels, radius);
    return hi >= lo;
  });
}

// `tiles` tiles over [lo, hi) as alike in height as cuts on `grid` allow.
std::vector<std::int64_t> even_cuts(std::int64_t lo, std::int64_t hi, std::int64_t tiles, RowGrid grid) {
  std::vector<std::int64_t> cuts{lo};
  for (std::int64_t i = 1; i < tiles; ++i) cuts.push_back(std::min(hi, grid.at_or_above(lo + (hi - lo) * i / tiles)));
  cuts.push_back(hi);
  return cuts;
}

}  // namespace

double deep_halo_overhead(const Index3& extent, const std::array<int, 3>& faces_per_axis, int levels, int radius) {
  FaceFlags faces{};
  for (std::size_t a = 0; a < 3; ++a) {
    faces[a][1] = faces_per_axis[a] >= 1;
    faces[a][0] = faces_per_axis[a] >= 2;
  }
  const Box owned{{0, 0, 0}, extent};
  if (owned.empty() || levels < 1) return 1.0;
  const LevelBoxes boxes{grown_at(owned, faces, static_cast<std::int64_t>(levels - 1) * radius), faces, radius, {}};
  double computed = 0;
  for (int level = 1; level <= levels; ++level) computed += static_cast<double>(boxes.at(level).volume());
  return computed / (static_cast<double>(levels) * static_cast<double>(owned.volume()));
}

std::int64_t min_temporal_tile_rows(int levels, int radius) {
  return std::max<std::int64_t>(1, 2 * static_cast<std::int64_t>(levels - 1) * radius);
}

TemporalPlan plan_temporal_tiles(std::int64_t lo, std::int64_t hi, std::int64_t tile_rows, int levels, int radius,
                                 RowGrid grid) {
  if (hi <= lo) return {};
  std::int64_t rows = std::max(tile_rows, min_temporal_tile_rows(levels, radius));
  rows = (rows + grid.step - 1) / grid.step * grid.step;
  std::vector<std::int64_t> cuts{lo};
  while (grid.at_or_above(cuts.back() + rows) < hi) cuts.push_back(grid.at_or_above(cuts.back() + rows));
  // A last tile thinner than the minimum could not hold its trapezoid: it joins the one before.
  if (cuts.size() > 1 && hi - cuts.back() < min_temporal_tile_rows(levels, radius)) cuts.pop_back();
  cuts.push_back(hi);
  return plan_from_cuts(cuts);
}

TemporalPlan plan_sweep_tiles(const LevelBoxes& swept, int levels, int radius, std::int64_t tile_rows, int threads,
                              RowGrid grid) {
  // A fixed region's boxes carry no radius; the balance of the tiles needs the stencil's.
  const LevelBoxes boxes{swept.first, swept.moves, radius, swept.grows};
  const Box& first = boxes.first;
  TemporalPlan plan = plan_temporal_tiles(first.lo[1], first.hi[1], tile_rows, levels, boxes.radius, grid);
  const auto mark_faces = [&](TemporalPlan& p) {
    // A face of the region that moves narrows the outer tile on that side like a border between tiles.
    if (p.trapezoids.empty()) return;
    if (boxes.moves[1][0]) p.trapezoids.front().lo_step = 1;
    if (boxes.moves[1][1]) p.trapezoids.back().hi_step = -1;
  };
  // The tiles of one thread's share after its first lean on the one below, which that thread sweeps
  // just before: no border between them. Only the first tile of a share keeps a trapezoid's lower
  // side, and the border below it, as no thread waits for another's tile to finish.
  const auto lean_within_shares = [&](TemporalPlan& p) {
    const auto tiles = static_cast<std::int64_t>(p.trapezoids.size());
    for (int t = 0; t < threads; ++t) {
      const auto [share_first, share_end] = static_schedule_share(t, tiles, threads);
      for (std::int64_t j = share_first + 1; j < share_end; ++j) {
        TemporalPiece& tile = p.trapezoids[static_cast<std::size_t>(j)];
        tile.lo_step = -1;
        p.borders[static_cast<std::size_t>(j - 1)] = {tile.lo, tile.lo, 0, 0};
      }
    }
  };
  mark_faces(plan);
  auto tiles = static_cast<std::int64_t>(plan.trapezoids.size());
  if (tiles <= 1) return plan;
  const auto holding = [&](const std::vector<std::int64_t>& cuts) -> std::optional<TemporalPlan> {
    // Every tile at least one row high: cuts that rise strictly.
    if (std::adjacent_find(cuts.begin(), cuts.end(), std::greater_equal<>()) != cuts.end()) return std::nullopt;
    TemporalPlan candidate = plan_from_cuts(cuts);
    mark_faces(candidate);
    lean_within_shares(candidate);
    if (trapezoids_hold(candidate, levels, boxes.radius)) return candidate;
    return std::nullopt;
  };
  // As many tiles for every thread: a thread with one more would hold the others up. Balanced tiles
  // differ in height (the outer ones by up to (levels - 1)R); where tiles of the least height would
  // not hold their trapezoids then, fewer and taller ones do.
  if (tiles > threads) tiles -= tiles % threads;
  for (std::int64_t count = tiles; count > 0; count -= threads)
    if (auto balanced = holding(balanced_cuts(boxes, levels, count, grid))) return *balanced;
  if (auto even = holding(even_cuts(first.lo[1], first.hi[1], tiles, grid))) return *even;
  return plan;
}

std::vector<std::int64_t> temporal_thread_rows(const LevelBoxes& boxes, int levels, int radius, std::int64_t tile_rows,
                                               int threads, RowGrid grid) {
  const TemporalPlan plan = plan_sweep_tiles(boxes, levels, radius, tile_rows, threads, grid);
  const auto tiles = static_cast<std::int64_t>(plan.trapezoids.size());
  std::vector<std::int64_t> starts;
  for (int t = 0; t < threads; ++t) {
    const auto [first, end] = static_schedule_share(t, tiles, threads);
    starts.push_back(first < end ? plan.trapezoids[first].lo : boxes.first.hi[1]);
  }
  starts.push_back(boxes.first.hi[1]);
  return starts;
}

template <typename F>
void sweep_tiles(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                 const LevelBoxes& boxes, int levels, std::int64_t tile_rows,
                 const AfterLevel<F>& after_level,
                 const std::function<void()>* between_pieces, SweepLevelTimes* level_times) {
  if (levels < 1) throw std::logic_error("sweep_tiles: levels must be at least 1");
  if (boxes.first.empty()) return;
  for (int level = 1; level <= levels; ++level)
    if (!boxes.at(level).empty()) kernel.check_fields(current, previous, vel, boxes.at(level));
  const FrontRange fronts = front_range(kernel, current, boxes, levels);
  const std::int64_t steps = fronts.steps();
  TemporalPlan plan;
  std::unique_ptr<TileProgress> progress_slot;
#pragma omp parallel
  {
    const int team = omp_get_num_threads();
    // The plan depends on the team's size, known here only; one thread makes it, and the implicit
    // barrier of single lets the others read it (and the progress counters) only once it is made.
#pragma omp single
    {
      plan = plan_sweep_tiles(boxes, levels, kernel.radius(), tile_rows, team, tile_row_grid(current));
      progress_slot = std::make_unique<TileProgress>(plan.trapezoids.size());
    }
    const auto tiles = static_cast<std::int64_t>(plan.trapezoids.size());
    TileProgress& progress = *progress_slot;
    const bool polls = between_pieces != nullptr && omp_get_thread_num() == 0;
    SweepLevelTimes my_times;  // this thread's, added to level_times once its tiles are done
    SweepLevelTimes* const tally = level_times ? &my_times : nullptr;
    const auto [first, end] = static_schedule_share(omp_get_thread_num(), tiles, team);
    for (std::int64_t j = first; j < end; ++j) {
      const auto& tile = plan.trapezoids[static_cast<std::size_t>(j)];
      // The borders that trail tile j by one front step: the one below it when tile j - 1 is this
      // thread's too (done before) and tile j does not lean on it, and the one above it when j is
      // this thread's last tile (the tile above is then the next thread's first, swept at the same
      // time or before).
      std::vector<std::int64_t> trailing;  // border b lies between tiles b and b + 1
      if (j > first && !tile.leans_on_tile_below()) trailing.push_back(j - 1);
      if (j + 1 == end && j + 1 < tiles) trailing.push_back(j);
      for (std::int64_t n = 0; n <= steps; ++n) {
        if (n < steps) {
          run_front_step(kernel, current, previous, vel, boxes, levels, tile, fronts.position(n), fronts,
                         after_level, tally);
          progress.completed(static_cast<std::size_t>(j), n + 1);
        }
        // A border's step reads the levels its two tiles computed up to the same front position, and
        // overwrites what they read below it: both must have done that step, and need not wait for it.
        if (n > 0)
          for (const std::int64_t b : trailing) {
            progress.wait_for(static_cast<std::size_t>(b), n);
            progress.wait_for(static_cast<std::size_t>(b + 1), n);
            run_front_step(kernel, current, previous, vel, boxes, levels, plan.borders[static_cast<std::size_t>(b)],
                           fronts.position(n - 1), fronts, after_level, tally);
          }
        if (polls) (*between_pieces)();
      }
    }
    if (tally) {
#pragma omp critical(wave3d_sweep_level_times)
      level_times->merge(my_times);
    }
  }
}

std::vector<LevelBoxes> z_slab_shells(const LevelBoxes& outer, const LevelBoxes& inner, int levels) {
  const auto same_xy = [](const Box& a, const Box& b) {
    return a.lo[0] == b.lo[0] && a.hi[0] == b.hi[0] && a.lo[1] == b.lo[1] && a.hi[1] == b.hi[1];
  };
  // Slabs where inside and outside span the same x and y at every level: the same at level 1, moving
  // alike (both not at all, or both a radius per level beyond halo faces copied before the sweep).
  const bool z_only = !any_face(outer.grows) && !any_face(inner.grows) && inner.moves == outer.moves &&
                      inner.radius == outer.radius && same_xy(outer.first, inner.first);
  const Box last_inside = inner.at(levels);
  if (!z_only || last_inside.lo[2] >= last_inside.hi[2]) return {};
  std::vector<LevelBoxes> shells;
  for (std::size_t side : {0, 1}) {
    // No shell where the inside reaches the face as far as the sweep does (a halo copied before).
    const bool reaches = side == 0 ? inner.first.lo[2] <= outer.first.lo[2] : inner.first.hi[2] >= outer.first.hi[2];
    if (!outer.moves[2][side] || reaches) continue;
    // Between the swept box's face and the inside's, which moves with it; the far end grows back.
    LevelBoxes shell{outer.first, outer.moves, outer.radius, {}};
    if (side == 0) shell.first.hi[2] = inner.first.lo[2];
    else shell.first.lo[2] = inner.first.hi[2];
    shell.moves[2] = {false, false};
    shell.moves[2][side] = true;
    shell.grows[2][1 - side] = true;
    shells.push_back(shell);
  }
  return shells;
}

template <typename F>
void sweep_shells(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                  const LevelBoxes& outer, const LevelBoxes& inner, int levels, std::int64_t tile_rows,
                  const AfterLevel<F>& after_level,
                  SweepLevelTimes* level_times) {
  const std::vector<LevelBoxes> slabs = z_slab_shells(outer, inner, levels);
  if (!slabs.empty()) {
    for (const LevelBoxes& slab : slabs)
      sweep_tiles(kernel, current, previous, vel, slab, levels, tile_rows, after_level, nullptr, level_times);
    return;
  }
  for (int level = 1; level <= levels; ++level)
    sweep_level_outside(kernel, current, previous, vel, outer.at(level), inner.at(level), level, after_level,
                        level_times);
}

template <typename F>
void sweep_level_outside(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                         const Box& all, const Box& inner, int level,
                         const AfterLevel<F>& after_level,
                         SweepLevelTimes* level_times, const std::function<void()>* between_blocks) {
  // Levels are computed in place: odd ones into previous, reading current, even ones the other way.
  F& source = level % 2 == 1 ? current : previous;
  F& target = level % 2 == 1 ? previous : current;
  for (const Box& shell : boxes_outside(all, intersect(inner, all))) {
    const double start = level_times ? omp_get_wtime() : 0.0;
    kernel.update(source, target, vel, shell, between_blocks);
    if (level_times) level_times->add(level, (omp_get_wtime() - start) * omp_get_max_threads(), shell.volume());
    if (after_level) after_level(target, shell, level);
  }
}

template <typename F>
void sweep_levels(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                  const LevelBoxes& boxes, int levels, std::int64_t tile_rows,
                  const AfterLevel<F>& after_level,
                  SweepLevelTimes* level_times) {
  if (levels < 1) throw std::logic_error("sweep_levels: levels must be at least 1");
  sweep_tiles(kernel, current, previous, vel, boxes, levels, tile_rows, after_level, nullptr, level_times);
  swap_after_levels(current, previous, levels);
}

#define WAVE3D_TEMPORAL_SWEEP(F)                                                                              \
  template void sweep_levels<F>(const KernelFor<F>&, F&, F&, const F&, const LevelBoxes&, int, std::int64_t,         \
                                const AfterLevel<F>&, SweepLevelTimes*);                                             \
  template void sweep_tiles<F>(const KernelFor<F>&, F&, F&, const F&, const LevelBoxes&, int, std::int64_t,          \
                               const AfterLevel<F>&, const std::function<void()>*, SweepLevelTimes*);                \
  template void sweep_shells<F>(const KernelFor<F>&, F&, F&, const F&, const LevelBoxes&, const LevelBoxes&, int,    \
                                std::int64_t, const AfterLevel<F>&, SweepLevelTimes*);                               \
  template void sweep_level_outside<F>(const KernelFor<F>&, F&, F&, const F&, const Box&, const Box&, int,           \
                                       const AfterLevel<F>&, SweepLevelTimes*, const std::function<void()>*);
WAVE3D_TEMPORAL_SWEEP(Field<float>)
WAVE3D_TEMPORAL_SWEEP(Field<double>)
WAVE3D_TEMPORAL_SWEEP(FoldedField<float>)
WAVE3D_TEMPORAL_SWEEP(FoldedField<double>)
#undef WAVE3D_TEMPORAL_SWEEP

}  // namespace wave3d
