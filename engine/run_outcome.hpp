#pragma once
// What one run produced, as plain values: filled by the time loop, printed by the report and
// written to run.json. Values combined over ranks are already combined (rank 0 holds the truth).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/blocking_tuning.hpp"
#include "engine/field_io_record.hpp"
#include "counters/job_counters.hpp"
#include "field/page_locations.hpp"
#include "runtime/denormals.hpp"
#include "runtime/step_times.hpp"
#include "solver/sweep_level_times.hpp"

namespace wave3d::engine {

enum class VerificationStatus { verified, not_verified, failed };

struct Verification {
  VerificationStatus status = VerificationStatus::not_verified;
  std::string method;  // "exact", "none"
  std::optional<double> max_error;
  std::optional<double> tolerance;
  std::string detail;  // one line for the summary
};

struct RunOutcome {
  int steps_done = 0;
  double loop_seconds = 0.0;          // slowest rank's time loop
  std::int64_t updated_points = 0;    // per step, whole grid
  int flops_per_point = 0;
  int bytes_per_point = 0;
  std::string kernel;                 // the variant that ran ("jammed", "blocked", "reference")
  Denormals denormals = Denormals::keep;  // how its threads treated subnormal values
  int steps_per_sweep = 1;            // time steps per sweep the loop ran (blocking.steps where it applies)
  std::string sweep_notice;           // why fewer steps per sweep than blocking.steps asked; empty if none
  std::string short_sweeps_notice;    // which sweeps snapshots, checkpoints or the end cut short; empty if none
  // The kernel's time on each level of the loop's sweeps, summed over every thread of every rank, and
  // the points of each level: empty with one step per sweep.
  SweepLevelTimes sweep_levels;
  int sweep_threads = 0;  // the threads of all ranks that computed them
  // How the sweeps met faces with neighbours (parallel.temporal_halo resolved: never "auto"), and why
  // "auto" resolved to deep halos where it did; empty if it did not.
  TemporalHalo temporal_halo = TemporalHalo::deep;
  std::string temporal_halo_notice;
  TunedBlocking tuning;               // the blocking the run used, and how it was found
  std::uint64_t checksum = 0;
  double l2_norm = 0.0;
  Verification verification;
  std::optional<std::string> failure;  // e.g. NaN detected: the run stopped early
  std::vector<StepTimes> step_times;   // per rank (complete on rank 0 only)
  std::array<int, 3> process_grid{1, 1, 1};
  std::optional<int> progress_thread_cpu;  // where rank 0's progress thread was seen running
  // Where rank 0's field pages landed (prev, next, vel), and notices from placing them.
  std::vector<PageHistogram> page_histograms;
  std::vector<std::string> pages_per_rank;  // on rank 0: each rank's {prev, next, vel} histograms as JSON text
  std::vector<std::string> placement_notices;
  std::uint64_t halo_bytes_per_step = 0;  // sent by all ranks together
  // How the halo reaches the folded kernel's levels: straight from and into them ("folded", where the
  // cuts along y and z lie on folds, with single steps or split tiling), or copied out of them into the
  // plain fields and back around each exchange ("copied"); "plain" without folded levels.
  std::string halo_route = "plain";
  // Memory of this rank (rank 0's on rank 0): the three fields, and RSS around them.
  std::size_t field_bytes = 0;
  std::optional<std::uint64_t> rss_before_fields;
  std::optional<std::uint64_t> peak_rss;
  // This rank's anonymous memory on transparent huge pages once the fields were first touched
  // (AnonHugePages), and the system's THP mode: whether init.huge_pages took effect.
  std::optional<std::uint64_t> huge_page_bytes;
  std::string huge_page_mode;
  std::optional<counters::JobCounters> counters;  // per-region event counts and DRAM traffic (rank 0)
  FieldIoRecord field_io;  // restart, snapshots and checkpoints (steps_done counts from field_io.first_step)

  // Seconds of the loop spent writing snapshots and checkpoints (the slowest rank's, as the writes are
  // collective); the restart read happens before the loop.
  double field_io_seconds() const { return field_io.snapshot_seconds + field_io.checkpoint_seconds; }
  // The throughput of the stencil and its halo exchange: the time loop without the field files written
  // in it, so that snapshots and checkpoints never pass for a slower kernel.
  double mpoints_per_second() const { return mpoints_in(loop_seconds - field_io_seconds()); }
  // The same over the whole loop, the field files included.
  double mpoints_per_second_with_io() const { return mpoints_in(loop_seconds); }
  double mpoints_in(double seconds) const {
    return seconds > 0 ? static_cast<double>(updated_points) * steps_done / seconds / 1e6 : 0.0;
  }
  double gflops() const { return mpoints_per_second() * flops_per_point / 1e3; }
  double effective_gbytes_per_second() const { return mpoints_per_second() * bytes_per_point / 1e3; }
};

const char* status_word(VerificationStatus status);

}  // namespace wave3d::engine
