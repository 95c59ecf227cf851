#include "solver/temporal_sweep.hpp"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace wave3d {
namespace {

// How many planes the wave front advances at a time: one for kernels that sweep rows plane by plane;
// a z block for the column kernel, whose columns need more than one plane to march along.
template <typename T>
std::int64_t planes_per_front_step(const Kernel<T>& kernel) {
  if (kernel.variant() != KernelVariant::columns) return 1;
  const std::int64_t z_block = kernel.blocking().size[2];
  return z_block > 0 ? z_block : 16;
}

// The wave front through one piece: at front position p, level L computes planes [p - (L-1)R,
// p - (L-1)R + C) of its rows, C planes per step. Level L reads planes up to p - (L-2)R + C - 1 of
// level L-1, which the same front position computed just before, and overwrites level L-2 below
// p - (L-1)R + C, which level L-1 no longer reads (its next step reads from p - (L-1)R + C on).
template <typename T>
void run_piece(const Kernel<T>& kernel, Field<T>& current, Field<T>& previous, const Field<T>& vel,
               const LevelBoxes& boxes, int levels, const TemporalPiece& piece,
               const std::function<void(Field<T>&, const Box&, int)>& after_level) {
  const int radius = kernel.radius();
  const std::int64_t lag = radius;
  const std::int64_t step = planes_per_front_step(kernel);
  std::int64_t first_front = boxes.at(1).lo[2], end_front = first_front;
  for (int level = 1; level <= levels; ++level) {
    first_front = std::min(first_front, boxes.at(level).lo[2] + (level - 1) * lag);
    end_front = std::max(end_front, boxes.at(level).hi[2] + (level - 1) * lag);
  }
  for (std::int64_t front = first_front; front < end_front; front += step) {
    for (int level = 1; level <= levels; ++level) {
      const Box region = boxes.at(level);
      const std::int64_t plane = std::max(front - (level - 1) * lag, region.lo[2]);
      const std::int64_t plane_end = std::min(front - (level - 1) * lag + step, region.hi[2]);
      if (plane >= plane_end) continue;
      auto [y_lo, y_hi] = piece.rows_at(level, radius);
      y_lo = std::max(y_lo, region.lo[1]);
      y_hi = std::min(y_hi, region.hi[1]);
      if (y_lo >= y_hi) continue;
      const Box box{{region.lo[0], y_lo, plane}, {region.hi[0], y_hi, plane_end}};
      // Odd levels go from current into previous, even ones back: the two buffers alternate.
      Field<T>& source = level % 2 == 1 ? current : previous;
      Field<T>& target = level % 2 == 1 ? previous : current;
      kernel.update_on_this_thread(source, target, vel, box);
      if (after_level) after_level(target, box, level);
    }
  }
}

}  // namespace

std::int64_t min_temporal_tile_rows(int levels, int radius) {
  return std::max<std::int64_t>(1, 2 * static_cast<std::int64_t>(levels - 1) * radius);
}

TemporalPlan plan_temporal_tiles(std::int64_t lo, std::int64_t hi, std::int64_t tile_rows, int levels, int radius) {
  TemporalPlan plan;
  if (hi <= lo) return plan;
  const std::int64_t rows = std::max(tile_rows, min_temporal_tile_rows(levels, radius));
  std::vector<std::int64_t> cuts{lo};
  while (cuts.back() + rows < hi) cuts.push_back(cuts.back() + rows);
  // A last tile thinner than the minimum could not hold its trapezoid: it joins the one before.
  if (cuts.size() > 1 && hi - cuts.back() < min_temporal_tile_rows(levels, radius)) cuts.pop_back();
  cuts.push_back(hi);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    TemporalPiece tile;
    tile.lo = cuts[i];
    tile.hi = cuts[i + 1];
    tile.moves_lo = i > 0;                   // the faces of the region stay put: they border no tile
    tile.moves_hi = i + 2 < cuts.size();
    plan.trapezoids.push_back(tile);
    if (i > 0) {
      TemporalPiece border;
      border.lo = border.hi = cuts[i];
      border.widens = true;
      plan.borders.push_back(border);
    }
  }
  return plan;
}

template <typename T>
void sweep_tiles(const Kernel<T>& kernel, Field<T>& current, Field<T>& previous, const Field<T>& vel,
                 const LevelBoxes& boxes, int levels, std::int64_t tile_rows,
                 const std::function<void(Field<T>&, const Box&, int)>& after_level,
                 const std::function<void()>* between_pieces) {
  if (levels < 1) throw std::logic_error("sweep_tiles: levels must be at least 1");
  const Box& first = boxes.first;
  if (first.empty()) return;
  for (int level = 1; level <= levels; ++level)
    if (!boxes.at(level).empty()) kernel.check_fields(current, previous, vel, boxes.at(level));
  TemporalPlan plan = plan_temporal_tiles(first.lo[1], first.hi[1], tile_rows, levels, kernel.radius());
  // A face of the region that moves narrows the outer tile on that side like a border between tiles.
  if (!plan.trapezoids.empty()) {
    plan.trapezoids.front().moves_lo = plan.trapezoids.front().moves_lo || boxes.moves[1][0];
    plan.trapezoids.back().moves_hi = plan.trapezoids.back().moves_hi || boxes.moves[1][1];
  }
  const auto trapezoids = static_cast<std::int64_t>(plan.trapezoids.size());
  const auto borders = static_cast<std::int64_t>(plan.borders.size());
#pragma omp parallel
  {
    const bool polls = between_pieces != nullptr && omp_get_thread_num() == 0;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < trapezoids; ++i) {
      run_piece(kernel, current, previous, vel, boxes, levels, plan.trapezoids[i], after_level);
      if (polls) (*between_pieces)();
    }
    // The implicit barrier: every trapezoid is done before the borders read around it.
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < borders; ++i) {
      run_piece(kernel, current, previous, vel, boxes, levels, plan.borders[i], after_level);
      if (polls) (*between_pieces)();
    }
  }
}

std::vector<LevelBoxes> z_slab_shells(const LevelBoxes& outer, const LevelBoxes& inner, int levels) {
  const auto same_xy = [](const Box& a, const Box& b) {
    return a.lo[0] == b.lo[0] && a.hi[0] == b.hi[0] && a.lo[1] == b.lo[1] && a.hi[1] == b.hi[1];
  };
  const std::array<bool, 3> moving = axes_of(outer.moves);
  const bool z_only = !moving[0] && !moving[1] && !any_face(outer.grows) &&
                      !any_face(inner.grows) && inner.moves == outer.moves && inner.radius == outer.radius &&
                      same_xy(outer.first, inner.first);
  const Box last_inside = inner.at(levels);
  if (!z_only || last_inside.lo[2] >= last_inside.hi[2]) return {};
  std::vector<LevelBoxes> shells;
  for (std::size_t side : {0, 1}) {
    if (!outer.moves[2][side]) continue;
    // Between the swept box's face and the inside's, which moves with it; the far end grows back.
    LevelBoxes shell{outer.first, {}, outer.radius, {}};
    if (side == 0) shell.first.hi[2] = inner.first.lo[2];
    else shell.first.lo[2] = inner.first.hi[2];
    shell.moves[2][side] = true;
    shell.grows[2][1 - side] = true;
    shells.push_back(shell);
  }
  return shells;
}

template <typename T>
void sweep_shells(const Kernel<T>& kernel, Field<T>& current, Field<T>& previous, const Field<T>& vel,
                  const LevelBoxes& outer, const LevelBoxes& inner, int levels, std::int64_t tile_rows,
                  const std::function<void(Field<T>&, const Box&, int)>& after_level) {
  const std::vector<LevelBoxes> slabs = z_slab_shells(outer, inner, levels);
  if (!slabs.empty()) {
    for (const LevelBoxes& slab : slabs) sweep_tiles(kernel, current, previous, vel, slab, levels, tile_rows, after_level);
    return;
  }
  for (int level = 1; level <= levels; ++level) {
    const Box all = outer.at(level);
    Field<T>& source = level % 2 == 1 ? current : previous;
    Field<T>& target = level % 2 == 1 ? previous : current;
    for (const Box& shell : boxes_outside(all, intersect(inner.at(level), all))) {
      kernel.update(source, target, vel, shell);
      if (after_level) after_level(target, shell, level);
    }
  }
}

template <typename T>
void sweep_levels(const Kernel<T>& kernel, Field<T>& current, Field<T>& previous, const Field<T>& vel,
                  const LevelBoxes& boxes, int levels, std::int64_t tile_rows,
                  const std::function<void(Field<T>&, const Box&, int)>& after_level) {
  if (levels < 1) throw std::logic_error("sweep_levels: levels must be at least 1");
  sweep_tiles(kernel, current, previous, vel, boxes, levels, tile_rows, after_level);
  swap_after_levels(current, previous, levels);
}

#define WAVE3D_TEMPORAL_SWEEP(T)                                                                              \
  template void sweep_levels<T>(const Kernel<T>&, Field<T>&, Field<T>&, const Field<T>&, const LevelBoxes&, int,     \
                                std::int64_t, const std::function<void(Field<T>&, const Box&, int)>&);               \
  template void sweep_tiles<T>(const Kernel<T>&, Field<T>&, Field<T>&, const Field<T>&, const LevelBoxes&, int,      \
                               std::int64_t, const std::function<void(Field<T>&, const Box&, int)>&,                 \
                               const std::function<void()>*);                                                        \
  template void sweep_shells<T>(const Kernel<T>&, Field<T>&, Field<T>&, const Field<T>&, const LevelBoxes&,          \
                                const LevelBoxes&, int, std::int64_t,                                                \
                                const std::function<void(Field<T>&, const Box&, int)>&);
WAVE3D_TEMPORAL_SWEEP(float)
WAVE3D_TEMPORAL_SWEEP(double)
#undef WAVE3D_TEMPORAL_SWEEP

}  // namespace wave3d
