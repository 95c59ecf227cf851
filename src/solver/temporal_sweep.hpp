#pragma once
// Temporal blocking: several time levels of a subdomain in one sweep over memory, so that each point
// is read from memory about once per sweep instead of once per level.
//
// The update region is cut along y into tiles, each OpenMP thread sweeping a run of neighbouring
// tiles (its share), one after another. The levels are computed with the two time-level buffers
// updated in place (split tiling):
//   - the first tile of a share computes a trapezoid that narrows by R rows per level on each side
//     that borders another thread's tile (level 1 the whole tile, level L the rows at least (L-1)R
//     from such a border);
//   - every later tile of a share leans on the tile below it, which its thread swept just before: a
//     parallelogram whose lower side moves down R rows per level as the upper side of the tile below
//     does, reading the rows that tile computed;
//   - at the border between two shares, an inverted trapezoid fills in what the trapezoids left out
//     (level L the (L-1)R rows on each side of the border). It reads what both tiles computed and
//     overwrites what they read, so it runs behind them.
// Inside each piece a wave front runs along z: level L computes plane p - (L-1)R while level 1
// computes plane p, so the planes a level reads from the level below are still in cache (the column
// kernel advances a z block of planes at a time, which its columns march along).
//
// A thread computes the border above its last tile one front step behind that tile, while what it
// reads is still in cache, waiting where needed for the next thread's first tile (swept at the same
// time) to get that far. Tiles never wait, so neither does anything for long. The tiles are cut so
// that every thread computes as many rows over the levels as another (plan_sweep_tiles).
// Parallelograms need no border of their own: fewer, smaller pieces than trapezoids everywhere (a
// 256^3 grid at R = 8, 4 levels, tiles of 64 rows: 1-3 % faster on 2 threads, the same on one).
//
// Every point of every level is computed once, by the kernel, from the same inputs as a step at a
// time would use: the result is bitwise equal to `levels` single steps. There is no halo exchange
// inside a sweep. On a face without neighbour the region stays put (the fixed zero boundary never
// changes). Beyond a face whose halo a neighbour fills, the halo is exchanged `levels` radii deep
// before the sweep, and the region moves (LevelBoxes): level 1 reaches levels-1 radii into the
// halo, each later level one radius less, the last the owned points only. The halo points are
// computed redundantly, exactly as the neighbour computes them (deep halos, overlapped tiling).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "field/field.hpp"
#include "geometry/box.hpp"
#include "solver/sweep_level_times.hpp"
#include "stencil/folded_field.hpp"
#include "stencil/kernel.hpp"

namespace wave3d {

// The sweeps below run on plain fields (Field<T>) or on folded ones (FoldedField<T>, with the
// folded kernel): F is either, with the kernel of its values and the hook after each level's piece.
template <typename F>
using KernelFor = Kernel<typename F::value_type>;
template <typename F>
using AfterLevel = std::function<void(F&, const Box&, int)>;

// One piece of a sweep: the rows [lo, hi) of level 1, each side moving R rows per level the way its
// step says (+1 up, -1 down, 0 not at all):
//   - a tile's trapezoid narrows on the sides that border another thread's tile or a face that moves
//     (lo_step +1, hi_step -1);
//   - a border's inverted trapezoid widens around the cut at lo == hi (lo_step -1, hi_step +1);
//   - a tile whose lower neighbour is swept before it by the same thread leans onto it (lo_step -1,
//     as that neighbour's hi_step): a parallelogram, reading the rows the neighbour computed, so that
//     no border is needed between the two.
struct TemporalPiece {
  std::int64_t lo = 0, hi = 0;
  int lo_step = 0, hi_step = 0;

  // The rows this piece computes at `level` (1-based) for a stencil of radius `radius`.
  std::pair<std::int64_t, std::int64_t> rows_at(int level, int radius) const {
    const std::int64_t d = static_cast<std::int64_t>(level - 1) * radius;
    return {lo + lo_step * d, hi + hi_step * d};
  }
  bool leans_on_tile_below() const { return lo_step < 0; }
};

// The box a sweep computes at each level: `first` at level 1, each face marked in `moves` one
// radius further inward at every later level, each face marked in `grows` one radius further out.
struct LevelBoxes {
  Box first;
  FaceFlags moves{};
  int radius = 0;
  FaceFlags grows{};

  static LevelBoxes fixed(const Box& box) { return {box, {}, 0, {}}; }
  Box at(int level) const {
    const auto d = static_cast<std::int64_t>(level - 1) * radius;
    return grown_at(grown_at(first, moves, -d), grows, d);
  }
};

struct TemporalPlan {
  std::vector<TemporalPiece> trapezoids;  // the tiles, bottom to top
  // borders[b] lies between tiles b and b + 1; it computes nothing (lo == hi, no steps) where tile
  // b + 1 leans on tile b.
  std::vector<TemporalPiece> borders;
};

// The smallest tile height that keeps every trapezoid of `levels` levels non-empty in its last level.
std::int64_t min_temporal_tile_rows(int levels, int radius);

// The rows a cut between tiles may fall on: base + n * step. Every row for plain fields; for folded
// ones the first row of a y fold, so that no fold is computed in part by two tiles (which would
// compute all its lanes twice).
struct RowGrid {
  std::int64_t base = 0, step = 1;
  // The first row of the grid at or above `row`.
  std::int64_t at_or_above(std::int64_t row) const {
    const std::int64_t d = row - base;
    return base + (d >= 0 ? (d + step - 1) / step : -((-d) / step)) * step;
  }
};

// Tiles of `tile_rows` rows (at least min_temporal_tile_rows, and whole steps of `grid`; the last tile
// takes the remainder, or is merged into the one before if shorter than that) over the rows [lo, hi),
// the cuts on `grid`.
TemporalPlan plan_temporal_tiles(std::int64_t lo, std::int64_t hi, std::int64_t tile_rows, int levels, int radius,
                                 RowGrid grid = {});

// The tiles a sweep of `boxes` runs on a team of `threads`: as many as plan_temporal_tiles cuts, or
// fewer, as many for every thread, cut so that each tile and the border above it compute as many
// rows summed over the levels as another, were all tiles trapezoids (at level L the rows
// [c_i + (L-1)R, c_{i+1} + (L-1)R) of that level's box, c_i the tile's first row; leaning moves rows
// only between the tiles of one share). The faces of `boxes` that move narrow the outer tiles.
// Thread t sweeps the tiles of its share under schedule(static) (static_schedule_share); all but the
// first lean on the tile below. The cuts fall on `grid`.
TemporalPlan plan_sweep_tiles(const LevelBoxes& boxes, int levels, int radius, std::int64_t tile_rows, int threads,
                              RowGrid grid = {});

// The first level-1 row each of `threads` threads computes in such a sweep, and the end of the last
// (threads + 1 values; a thread without tiles starts where the next does): for first touch.
std::vector<std::int64_t> temporal_thread_rows(const LevelBoxes& boxes, int levels, int radius, std::int64_t tile_rows,
                                               int threads, RowGrid grid = {});

// The grid the tiles of a sweep over `field` are cut on (RowGrid): every row of a plain field, the
// first rows of the y folds of a folded one.
template <typename T>
RowGrid tile_row_grid(const Field<T>&) {
  return {};
}
template <typename T>
RowGrid tile_row_grid(const FoldedField<T>& field) {
  return {field.held().lo[1], FoldedField<T>::kFoldY};
}

// Advances (current, previous) by `levels` time levels over `boxes` in one sweep. On return the
// newest level is in `current` and the one before in `previous`, as after `levels` single steps and
// their swaps. after_level(field, box, level) is called on the thread that computed `box` of `level`
// into `field`, before any later level reads it (the place for a source term). level_times, if given,
// gets each level's kernel time summed over the threads and its points (waits between threads and
// after_level not counted).
template <typename F>
void sweep_levels(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                  const LevelBoxes& boxes, int levels, std::int64_t tile_rows,
                  const AfterLevel<F>& after_level,
                  SweepLevelTimes* level_times = nullptr);

// The same in two parts, for overlapping a halo exchange with computing. While the halo travels,
// sweep_tiles computes `inner` (boxes that keep `levels` radii away from the faces whose halo is in
// flight); between_pieces, if given, is called by OpenMP thread 0 after each of its front steps (to
// poll the messages). Once the halo is in, sweep_shells computes the rest of `outer` one level at a time
// (each level's boxes of outer not in inner, each over all threads; z slabs as wave fronts, see
// z_slab_shells). Then swap_after_levels. level_times as for sweep_levels.
template <typename F>
void sweep_tiles(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                 const LevelBoxes& boxes, int levels, std::int64_t tile_rows,
                 const AfterLevel<F>& after_level,
                 const std::function<void()>* between_pieces = nullptr, SweepLevelTimes* level_times = nullptr);
// tile_rows: as for sweep_tiles, for shells that are z slabs (z_slab_shells).
template <typename F>
void sweep_shells(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                  const LevelBoxes& outer, const LevelBoxes& inner, int levels, std::int64_t tile_rows,
                  const AfterLevel<F>& after_level,
                  SweepLevelTimes* level_times = nullptr);
// Level `level` (1-based) of a sweep that started at (current, previous), on the points of `all`
// outside `inner`, each box over all threads; after_level and level_times as for sweep_levels (the
// time of a box over all threads counted once per thread of the team); between_blocks as for
// Kernel::update (driving messages in flight).
template <typename F>
void sweep_level_outside(const KernelFor<F>& kernel, F& current, F& previous, const F& vel,
                         const Box& all, const Box& inner, int level,
                         const AfterLevel<F>& after_level,
                         SweepLevelTimes* level_times = nullptr,
                         const std::function<void()>* between_blocks = nullptr);
// The shells of sweep_shells as wave fronts of their own, where they are slabs along z (inside and
// outside span the same x and y at every level, as on a process grid cut along z, with halos along
// x and y copied before the sweep or none there): at level L the shell beyond the high
// z face spans from the inside's end to the sweep's (with the solver's boxes at T levels,
// [hi - (T + L - 2) R, hi + (T - L) R) for T >= 2: 2 (T - 1) R planes), a slab that steps down one
// radius per level, beyond the low face the mirror image. In the coordinates of the wave front (level L lags
// (L - 1) R planes) that is one fixed range, so one sweep computes all its levels with each plane read
// from memory about once, instead of once per level; every point it reads from the inside still
// holds the level it needs (the inside's staircase is one radius per level, as the shell's). Empty
// where the shells are not such slabs, or the inside vanishes at some level (the two shells would meet).
std::vector<LevelBoxes> z_slab_shells(const LevelBoxes& outer, const LevelBoxes& inner, int levels);

// The points a sweep of `levels` computes on a subdomain of `extent` whose halo neighbours fill on
// faces_per_axis[a] of its faces along axis a (0, 1 or 2), over the points it owns times `levels`:
// 1 plus the share of the work spent on deep halos, computed redundantly (1 without neighbours or
// with one level). At R = 8 and 4 levels a 128-plane subdomain with one neighbour along z: 1.094.
double deep_halo_overhead(const Index3& extent, const std::array<int, 3>& faces_per_axis, int levels, int radius);

// After an odd number of levels the newest one is in `previous`: swap as single steps would.
template <typename F>
void swap_after_levels(F& current, F& previous, int levels) {
  using std::swap;
  if (levels % 2 == 1) swap(current, previous);
}

}  // namespace wave3d
