#pragma once
// Progress of the time loop for the person waiting on it. Short runs stay silent; on a terminal one
// line is rewritten in place; in a log file (batch jobs) a full line appears now and then, so logs
// stay short. The caller passes the elapsed time in, which keeps the reporter free of clocks and
// testable without sleeping.
#include <cstdint>
#include <cstdio>
#include <string>

#include "config/run_config.hpp"

namespace wave3d {

class ProgressReporter {
 public:
  enum class Style { off, live, plain };

  // `out` must stay open while the reporter is used. points_per_step > 0 adds a rate in MPoints/s.
  // ProgressMode::automatic resolves with automatic_style(): live only on a terminal of the user's.
  ProgressReporter(std::int64_t total_steps, ProgressMode mode, std::FILE* out, double points_per_step = 0.0);

  // After `steps_done` steps and `elapsed_seconds` since the loop started. Cheap when nothing is due.
  void update(std::int64_t steps_done, double elapsed_seconds);
  // Shows the last state given to update() if it has not been shown, and ends a live line.
  void finish();

  Style style() const { return style_; }

  // What run.progress = "auto" shows: WAVE3D_PROGRESS (live, plain or off) when set, else live on a
  // terminal that is not a launcher's, plain otherwise. mpirun and srun hand every rank a
  // pseudo-terminal of their own even when their output goes to a file, so a terminal under a
  // launcher is no sign of a person watching: a batch log must not fill with rewritten lines.
  // Throws std::invalid_argument for another WAVE3D_PROGRESS value.
  static Style automatic_style(bool out_is_terminal, bool under_launcher, const char* wave3d_progress);
  // Whether an MPI launcher started this process (Open MPI's mpirun, srun, a PMI or PMIx launcher).
  static bool under_launcher();

  // The progress text for a state: "step 120/500 (24%)  1.9 s elapsed  ~6.0 s left  812 MPoints/s".
  std::string describe(std::int64_t steps_done, double elapsed_seconds) const;

  static constexpr double kQuietSeconds = 2.0;     // nothing before this: short runs stay quiet
  static constexpr double kLiveInterval = 0.25;    // at most 4 rewrites a second on a terminal
  static constexpr double kPlainInterval = 30.0;   // plain: a line every 10 % of the steps or 30 s

 private:
  void show(std::int64_t steps_done, double elapsed_seconds);

  std::int64_t total_;
  std::FILE* out_;
  double points_per_step_;
  Style style_;

  std::int64_t last_steps_ = 0;        // last state passed to update()
  double last_elapsed_ = 0;
  bool shown_any_ = false;
  std::int64_t shown_steps_ = -1;      // last state shown
  double shown_elapsed_ = 0;
  std::int64_t next_milestone_ = 0;    // plain: step count of the next 10 % line
  std::size_t live_width_ = 0;         // live: length of the line on screen, to blank leftovers
  bool finished_ = false;
};

// "1.9 s", "12m05s", "2h03m".
std::string format_duration(double seconds);

}  // namespace wave3d
