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

// parallel.temporal_halo = "auto": split tiling where the subdomains hold it for the steps asked (2 for
// blocking.steps = "auto"), deep halos elsewhere, with the reason; deep halos, and nothing to say,
// where no sweep meets a neighbour.
TEST(SweepLimits, AutoSplitsWhereTheSubdomainsHoldItAndSaysWhyNotElsewhere) {
  const RunConfig three = config_of(Boundary::zero, TemporalHalo::automatic, 3);
  EXPECT_EQ(resolved_temporal_halo(three, halves_along_z(three)), TemporalHalo::split);  // (3 + 1) x 8 = 32
  EXPECT_FALSE(temporal_halo_notice(three, halves_along_z(three)).has_value());

  const RunConfig four = config_of(Boundary::zero, TemporalHalo::automatic, 4);
  EXPECT_EQ(resolved_temporal_halo(four, halves_along_z(four)), TemporalHalo::deep);  // 5 x 8 = 40 > 32
  EXPECT_EQ(temporal_halo_notice(four, halves_along_z(four)),
            "parallel.temporal_halo = \"auto\": deep halos, not split tiling: the thinnest subdomain along z holds "
            "32 points, fewer than split tiling keeps from its 1 face with neighbours in a sweep of 4 steps "
            "(1 x (steps + 1) x R = 40 points)");
  EXPECT_EQ(max_steps_per_sweep(RunConfig(four), halves_along_z(four)), 4);  // unresolved "auto" counts as deep

  RunConfig tuned = config_of(Boundary::zero, TemporalHalo::automatic, 1);
  tuned.tune.steps = true;  // blocking.steps = "auto": split where a sweep of 2 fits
  EXPECT_EQ(resolved_temporal_halo(tuned, halves_along_z(tuned)), TemporalHalo::split);

  // Too thin for deep halos too (5 x 8 > 32): the obstacle says why, the notice has nothing to add.
  const RunConfig five = config_of(Boundary::zero, TemporalHalo::automatic, 5);
  EXPECT_EQ(resolved_temporal_halo(five, halves_along_z(five)), TemporalHalo::deep);
  EXPECT_FALSE(temporal_halo_notice(five, halves_along_z(five)).has_value());
  EXPECT_TRUE(temporal_blocking_obstacle(five, halves_along_z(five)).has_value());

  // One rank, zero boundaries: no neighbour, nothing to choose.
  const mpi::Decomposition whole = mpi::decompose(three.grid.n, 1, {1, 1, 1}, three.grid.radius);
  EXPECT_EQ(resolved_temporal_halo(three, whole), TemporalHalo::deep);
  EXPECT_FALSE(temporal_halo_notice(three, whole).has_value());

  // What the tuner is handed: "auto" where split tiling fits (its trial may still choose deep halos),
  // the resolved halo elsewhere, with the deepest sweep that halo allows.
  EXPECT_EQ(temporal_set_up(three, halves_along_z(three)).tuner_halo, TemporalHalo::automatic);
  EXPECT_EQ(temporal_set_up(three, halves_along_z(three)).max_steps, 3);
  EXPECT_EQ(temporal_set_up(four, halves_along_z(four)).tuner_halo, TemporalHalo::deep);
  EXPECT_EQ(temporal_set_up(four, halves_along_z(four)).max_steps, 4);
  EXPECT_EQ(temporal_set_up(four, halves_along_z(four)).halo_notice, temporal_halo_notice(four, halves_along_z(four)));
  EXPECT_TRUE(temporal_set_up(five, halves_along_z(five)).obstacle.has_value());
  EXPECT_EQ(temporal_set_up(five, halves_along_z(five)).max_steps, 1);

  // A temporal halo given by name is kept, even where the other would fit.
  const RunConfig deep = config_of(Boundary::zero, TemporalHalo::deep, 3);
  EXPECT_EQ(resolved_temporal_halo(deep, halves_along_z(deep)), TemporalHalo::deep);
  EXPECT_FALSE(temporal_halo_notice(deep, halves_along_z(deep)).has_value());
}

}  // namespace
}  // namespace wave3d::engine
