// Which checkpoints may continue which runs (pure, no files).
#include <gtest/gtest.h>

#include <string>

#include "config/config_json.hpp"
#include "engine/restart_match.hpp"

namespace {

using namespace wave3d;
using namespace wave3d::io;
using namespace wave3d::engine;

RunConfig base_config() {
  RunConfig c;
  c.grid.n = {64, 48, 32};
  c.grid.radius = 4;
  c.precision = Precision::single;
  c.steps = 40;
  return c;
}

// A checkpoint written by `c` at `step`, with the shape its datasets would have.
std::pair<FieldFileHeader, GridDatasetShape> checkpoint_of(const RunConfig& c, std::int64_t step) {
  return {field_file_header(kCheckpointFormat, c, step, "{}"),
          GridDatasetShape{c.grid.n, true, c.precision == Precision::single ? 4u : 8u}};
}

std::string mismatches(const RunConfig& written, const RunConfig& run, std::int64_t step = 20) {
  const auto [header, shape] = checkpoint_of(written, step);
  std::string all;
  for (const std::string& m : checkpoint_mismatches(header, shape, run)) all += m + "\n";
  return all;
}

TEST(CheckpointMatch, TheSameRunFits) { EXPECT_EQ(mismatches(base_config(), base_config()), ""); }

TEST(CheckpointMatch, ParallelAndOutputSettingsMayDiffer) {
  RunConfig run = base_config();
  run.parallel.process_grid = {1, 2, 2};
  run.parallel.halo = HaloMode::bulk;
  run.blocking.size = {0, 8, 8};
  run.threads = 3;
  run.steps = 100;
  run.output.snapshot_every = 5;
  run.checkpoint.every = 7;
  run.restart.from = "somewhere.h5";
  EXPECT_EQ(mismatches(base_config(), run), "");
}

TEST(CheckpointMatch, GridRadiusAndPrecisionAreNamed) {
  RunConfig run = base_config();
  run.grid.n = {128, 128, 128};
  EXPECT_NE(mismatches(base_config(), run).find("grid 64x48x32 does not match grid.n = 128,128,128"),
            std::string::npos)
      << mismatches(base_config(), run);
  run = base_config();
  run.grid.radius = 8;
  EXPECT_NE(mismatches(base_config(), run).find("stencil radius 4 does not match stencil.radius = 8"), std::string::npos)
      << mismatches(base_config(), run);
  run = base_config();
  run.precision = Precision::double_;
  EXPECT_NE(mismatches(base_config(), run).find("single-precision values do not match stencil.precision = double"),
            std::string::npos)
      << mismatches(base_config(), run);
}

TEST(CheckpointMatch, EverySettingTheFieldDependsOnIsCompared) {
  RunConfig run = base_config();
  run.physics.dt = 0.0005;
  run.grid.spacing = 5.0;
  run.grid.boundary = Boundary::zero;
  run.physics.velocity = 2000.0;
  run.initial.kind = InitialKind::ricker;
  run.initial.amplitude = 2.0;
  run.initial.wave = {2, 1, 1};
  run.initial.source = {1, 2, 3};
  run.initial.frequency = 20.0;
  std::string m = mismatches(base_config(), run);
  for (const std::string& key : continuation_keys(run.initial.kind))
    EXPECT_NE(m.find(key + " = "), std::string::npos) << key << " not named in:\n" << m;
  // The mode's own settings, with a Ricker source on both sides.
  RunConfig written = base_config();
  written.initial.kind = InitialKind::ricker;
  run = written;
  run.initial.wave = {2, 1, 1};
  EXPECT_EQ(mismatches(written, run), "");
  run.initial.source = {1, 2, 3};
  EXPECT_NE(mismatches(written, run).find("source.position = 0,0,0 in the checkpoint does not match source.position = "
                                          "1,2,3"),
            std::string::npos);
  run = base_config();
  run.physics.dt = 0.0005;
  run.grid.boundary = Boundary::zero;
  m = mismatches(base_config(), run);
  EXPECT_NE(m.find("physics.dt = 0.001 in the checkpoint does not match physics.dt = 0.0005"), std::string::npos) << m;
  EXPECT_NE(m.find("grid.boundary = periodic in the checkpoint does not match grid.boundary = zero"), std::string::npos)
      << m;
}

TEST(CheckpointMatch, StepBeyondTheRunIsRefused) {
  RunConfig run = base_config();
  run.steps = 10;
  EXPECT_NE(mismatches(base_config(), run, 20).find("its step 20 is beyond run.steps = 10"), std::string::npos);
  EXPECT_EQ(mismatches(base_config(), run, 10), "");  // nothing left to do, but nothing wrong
}

TEST(CheckpointMatch, UnreadableConfigurationIsSaid) {
  auto [header, shape] = checkpoint_of(base_config(), 20);
  header.config_json = "{not json";
  const auto m = checkpoint_mismatches(header, shape, base_config());
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("not JSON"), std::string::npos);
}

}  // namespace
