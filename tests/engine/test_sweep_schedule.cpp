// Where the time loop's sweeps end (engine/sweep_schedule.hpp): at snapshots, checkpoints and the end
// of the run, not at NaN checks, which run after the sweep that reaches or passes their step.
#include <gtest/gtest.h>

#include <vector>

#include "engine/sweep_schedule.hpp"

namespace wave3d::engine {
namespace {

RunConfig config_of(int steps, int check_every, int snapshot_every = 0, int checkpoint_every = 0) {
  RunConfig c;
  c.steps = steps;
  c.check_every = check_every;
  c.output.snapshot_every = snapshot_every;
  c.checkpoint.every = checkpoint_every;
  return c;
}

// The steps at which each sweep of a whole run ends, and those after which the check runs.
struct Schedule {
  std::vector<int> sweep_ends, checks;
};
Schedule schedule_of(const RunConfig& c, int steps_per_sweep, int first = 0) {
  Schedule s;
  for (int done = first; done < c.steps;) {
    const int after = done + next_sweep_steps(c, steps_per_sweep, done);
    s.sweep_ends.push_back(after);
    if (check_due_after(c, done, after)) s.checks.push_back(after);
    done = after;
  }
  return s;
}

TEST(SweepSchedule, ChecksDoNotCutSweepsTheyRunAfterTheSweepThatPassesTheirStep) {
  const Schedule s = schedule_of(config_of(48, 10), 4);
  EXPECT_EQ(s.sweep_ends, (std::vector<int>{4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48}));
  EXPECT_EQ(s.checks, (std::vector<int>{12, 20, 32, 40, 48}));
}

TEST(SweepSchedule, OneStepPerSweepChecksAtEveryMultipleAndTheEnd) {
  const Schedule s = schedule_of(config_of(25, 10), 1);
  EXPECT_EQ(s.sweep_ends.size(), 25u);
  EXPECT_EQ(s.checks, (std::vector<int>{10, 20, 25}));
}

TEST(SweepSchedule, EveryStepCheckedMeansEverySweep) {
  const Schedule s = schedule_of(config_of(10, 1), 4);
  EXPECT_EQ(s.sweep_ends, (std::vector<int>{4, 8, 10}));
  EXPECT_EQ(s.checks, (std::vector<int>{4, 8, 10}));
}

TEST(SweepSchedule, SnapshotsCheckpointsAndTheEndEndASweepOnTheirStep) {
  const Schedule s = schedule_of(config_of(30, 10, 6, 25), 4);
  EXPECT_EQ(s.sweep_ends, (std::vector<int>{4, 6, 10, 12, 16, 18, 22, 24, 25, 29, 30}));
  EXPECT_EQ(s.checks, (std::vector<int>{10, 22, 30}));
}

TEST(SweepSchedule, AContinuedRunCountsFromTheStepItContinuesAt) {
  const Schedule s = schedule_of(config_of(40, 10, 0, 20), 4, 20);
  EXPECT_EQ(s.sweep_ends, (std::vector<int>{24, 28, 32, 36, 40}));
  EXPECT_EQ(s.checks, (std::vector<int>{32, 40}));
}

TEST(SweepSchedule, TheNoticeCountsTheSweepsAndStepsCutShort) {
  EXPECT_EQ(short_sweeps_notice(config_of(48, 10), 4, 0), "");
  EXPECT_EQ(short_sweeps_notice(config_of(30, 10, 6, 25), 1, 0), "");
  // Sweeps ending at 4, 6, 10, 12, 16, 18, 22, 24, 25, 29, 30: six of eleven short, 10 steps in them.
  EXPECT_EQ(short_sweeps_notice(config_of(30, 10, 6, 25), 4, 0),
            "6 of 11 sweeps ran fewer than 4 steps, ending at a snapshot, a checkpoint or the end of the run (10 of "
            "the 30 steps); intervals and run.steps that are multiples of 4 avoid it");
  // Continued at step 20 of 42: 24, ..., 40, 42.
  EXPECT_EQ(short_sweeps_notice(config_of(42, 10), 4, 20),
            "1 of 6 sweeps ran fewer than 4 steps, ending at a snapshot, a checkpoint or the end of the run (2 of the "
            "22 steps); intervals and run.steps that are multiples of 4 avoid it");
}

TEST(SweepSchedule, ASweepTakesAtLeastOneStep) {
  EXPECT_EQ(next_sweep_steps(config_of(10, 10), 0, 3), 1);
  EXPECT_EQ(next_sweep_steps(config_of(10, 10), 4, 9), 1);
}

}  // namespace
}  // namespace wave3d::engine
