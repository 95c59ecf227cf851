// How many time steps one sweep may take on a decomposition, with deep halos and with split tiling
// (engine/blocking_tuning.hpp): the thinnest subdomain along a cut or periodic axis must hold the deep
// halo of T R points, or (T + 1) R points per face with a neighbour.
#include <gtest/gtest.h>

#include "engine/blocking_tuning.hpp"
#include "mpi/decomposition.hpp"

namespace wave3d::engine {
namespace {

RunConfig config_of(Boundary boundary, TemporalHalo halo, int steps) {
  RunConfig c;
  c.grid.n = {64, 64, 64};
  c.grid.radius = 8;
  c.grid.boundary = boundary;
  c.parallel.temporal_halo = halo;
  c.blocking.steps = steps;
  c.tune.steps = false;
  return c;
}

// 64 points cut in two along z: subdomains of 32 planes.
mpi::Decomposition halves_along_z(const RunConfig& c) { return mpi::decompose(c.grid.n, 2, {1, 1, 2}, c.grid.radius); }

TEST(SweepLimits, DeepHalosNeedStepsRadiiSplitTilingStepsPlusOneRadiiPerFace) {
  const RunConfig deep = config_of(Boundary::zero, TemporalHalo::deep, 2);
  EXPECT_EQ(max_steps_per_sweep(deep, halves_along_z(deep)), 4);  // 4 x 8 = 32
  const RunConfig split = config_of(Boundary::zero, TemporalHalo::split, 2);
  EXPECT_EQ(max_steps_per_sweep(split, halves_along_z(split)), 3);  // one face: (3 + 1) x 8 = 32
  // Periodic: both faces of each half have a neighbour, and the uncut axes are their own neighbours.
  const RunConfig split_periodic = config_of(Boundary::periodic, TemporalHalo::split, 2);
  EXPECT_EQ(max_steps_per_sweep(split_periodic, halves_along_z(split_periodic)), 1);  // 2 x (1 + 1) x 8 = 32
}

TEST(SweepLimits, TheObstacleNamesTheAxisThePointsAndWhatSplitTilingKeeps) {
  const RunConfig split = config_of(Boundary::periodic, TemporalHalo::split, 2);
  const auto obstacle = temporal_blocking_obstacle(split, halves_along_z(split));
  ASSERT_TRUE(obstacle.has_value());
  EXPECT_EQ(*obstacle,
            "the thinnest subdomain along z holds 32 points, fewer than split tiling keeps from its 2 faces with "
            "neighbours in a sweep of 2 steps (2 x (steps + 1) x R = 48 points)");
  const RunConfig deep = config_of(Boundary::periodic, TemporalHalo::deep, 2);
  EXPECT_FALSE(temporal_blocking_obstacle(deep, halves_along_z(deep)).has_value());
  EXPECT_FALSE(temporal_blocking_obstacle(config_of(Boundary::zero, TemporalHalo::split, 3),
                                          halves_along_z(config_of(Boundary::zero, TemporalHalo::split, 3)))
                   .has_value());
}

}  // namespace
}  // namespace wave3d::engine
