#include "output/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

namespace wave3d {
namespace {

ProgressReporter::Style resolve_style(ProgressMode mode, std::FILE* out) {
  switch (mode) {
    case ProgressMode::off: return ProgressReporter::Style::off;
    case ProgressMode::live: return ProgressReporter::Style::live;
    case ProgressMode::plain: return ProgressReporter::Style::plain;
    case ProgressMode::automatic: break;
  }
  if (out == nullptr) return ProgressReporter::Style::off;
  const int fd = ::fileno(out);
  return ProgressReporter::automatic_style(fd >= 0 && ::isatty(fd), ProgressReporter::under_launcher(),
                                           std::getenv("WAVE3D_PROGRESS"));
}

}  // namespace

ProgressReporter::Style ProgressReporter::automatic_style(bool out_is_terminal, bool under_launcher,
                                                          const char* wave3d_progress) {
  if (wave3d_progress != nullptr && *wave3d_progress != '\0') {
    const std::string_view word = wave3d_progress;
    if (word == "live") return Style::live;
    if (word == "plain") return Style::plain;
    if (word == "off") return Style::off;
    if (word != "auto")
      throw std::invalid_argument(fmt::format("WAVE3D_PROGRESS = \"{}\" is not allowed; allowed: \"auto\", \"live\", "
                                              "\"plain\", \"off\"", word));
  }
  return out_is_terminal && !under_launcher ? Style::live : Style::plain;
}

bool ProgressReporter::under_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_STEP_ID"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}h{:02}m", whole / 3600, (whole % 3600) / 60);
}

ProgressReporter::ProgressReporter(std::int64_t total_steps, ProgressMode mode, std::FILE* out,
                                   double points_per_step)
    : total_(std::max<std::int64_t>(total_steps, 0)),
      out_(out),
      points_per_step_(points_per_step),
      style_(out == nullptr ? Style::off : resolve_style(mode, out)) {}

std::string ProgressReporter::describe(std::int64_t steps_done, double elapsed_seconds) const {
  const int percent = total_ > 0 ? static_cast<int>(100 * steps_done / total_) : 100;
  std::string text = fmt::format("step {}/{} ({}%)  {} elapsed", steps_done, total_, percent,
                                 format_duration(elapsed_seconds));
  if (steps_done > 0 && steps_done < total_)
    text += fmt::format("  ~{} left", format_duration(elapsed_seconds * static_cast<double>(total_ - steps_done) /
                                                      static_cast<double>(steps_done)));
  if (points_per_step_ > 0 && steps_done > 0 && elapsed_seconds > 0) {
    const double mpoints = points_per_step_ * static_cast<double>(steps_done) / elapsed_seconds / 1e6;
    text += mpoints >= 10 ? fmt::format("  {:.0f} MPoints/s", mpoints) : fmt::format("  {:.3g} MPoints/s", mpoints);
  }
  return text;
}

void ProgressReporter::update(std::int64_t steps_done, double elapsed_seconds) {
  last_steps_ = steps_done;
  last_elapsed_ = elapsed_seconds;
  if (style_ == Style::off || finished_ || elapsed_seconds < kQuietSeconds) return;

  if (style_ == Style::live) {
    if (!shown_any_ || elapsed_seconds - shown_elapsed_ >= kLiveInterval) show(steps_done, elapsed_seconds);
    return;
  }
  if (!shown_any_ || steps_done >= next_milestone_ || elapsed_seconds - shown_elapsed_ >= kPlainInterval)
    show(steps_done, elapsed_seconds);
}

void ProgressReporter::show(std::int64_t steps_done, double elapsed_seconds) {
  std::string text = describe(steps_done, elapsed_seconds);
  if (style_ == Style::live) {
    // '\r' returns to the start of the line; spaces blank what a longer previous line left behind.
    const std::size_t width = text.size();
    if (width < live_width_) text.append(live_width_ - width, ' ');
    live_width_ = width;
    std::fputc('\r', out_);
    std::fputs(text.c_str(), out_);
  } else {
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
    // The next line is due once another tenth of the steps is done (integer arithmetic, so the
    // milestones land exactly on 10 %, 20 %, ... of the steps).
    if (total_ > 0) {
      const std::int64_t next_tenth = std::max<std::int64_t>(steps_done, 0) * 10 / total_ + 1;
      next_milestone_ = (next_tenth * total_ + 9) / 10;
    } else {
      next_milestone_ = INT64_MAX;
    }
  }
  std::fflush(out_);
  shown_any_ = true;
  shown_steps_ = steps_done;
  shown_elapsed_ = elapsed_seconds;
}

void ProgressReporter::finish() {
  if (finished_ || style_ == Style::off || !shown_any_) {
    finished_ = true;
    return;
  }
  // A plain log needs a final line only for new steps; a live line also shows the final time.
  const bool newer = shown_steps_ != last_steps_ || (style_ == Style::live && shown_elapsed_ != last_elapsed_);
  if (newer) show(last_steps_, last_elapsed_);
  if (style_ == Style::live) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
  finished_ = true;
}

}  // namespace wave3d
