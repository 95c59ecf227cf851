#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "output/progress.hpp"

namespace wave3d {
namespace {

// A FILE* writing into memory; text() returns everything written so far.
class MemoryFile {
 public:
  MemoryFile() : file_(open_memstream(&buffer_, &size_)) {}
  ~MemoryFile() {
    std::fclose(file_);
    std::free(buffer_);
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::FILE* get() const { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

TEST(Progress, DescribesState) {
  const ProgressReporter reporter(500, ProgressMode::plain, stdout, 1e6 * 812.0 * 1.9 / 120.0);
  EXPECT_EQ(reporter.describe(120, 1.9), "step 120/500 (24%)  1.9 s elapsed  ~6.0 s left  812 MPoints/s");
  EXPECT_EQ(reporter.describe(500, 8.0), "step 500/500 (100%)  8.0 s elapsed  804 MPoints/s");
  EXPECT_EQ(reporter.describe(0, 2.5), "step 0/500 (0%)  2.5 s elapsed");
  EXPECT_EQ(format_duration(725), "12m05s");
  EXPECT_EQ(format_duration(7380), "2h03m");
}

TEST(Progress, AutomaticWithoutTerminalIsPlain) {
  MemoryFile out;
  EXPECT_EQ(ProgressReporter(10, ProgressMode::automatic, out.get()).style(), ProgressReporter::Style::plain);
  EXPECT_EQ(ProgressReporter(10, ProgressMode::live, out.get()).style(), ProgressReporter::Style::live);
  EXPECT_EQ(ProgressReporter(10, ProgressMode::off, out.get()).style(), ProgressReporter::Style::off);
}

TEST(Progress, ShortRunsStayQuiet) {
  MemoryFile out;
  ProgressReporter reporter(100, ProgressMode::automatic, out.get());
  for (int step = 1; step <= 100; ++step) reporter.update(step, step * 0.019);  // 1.9 s in total
  reporter.finish();
  EXPECT_EQ(out.text(), "");
}

TEST(Progress, PlainPrintsEveryTenthOrThirtySeconds) {
  MemoryFile out;
  ProgressReporter reporter(100, ProgressMode::plain, out.get());
  // One step per 0.1 s: quiet until 2 s (step 20), then a line at 20, 30, ..., 100.
  for (int step = 1; step <= 100; ++step) reporter.update(step, step / 10.0);  // exact binary values
  reporter.finish();
  const std::string text = out.text();
  EXPECT_EQ(text.find("step 19/"), std::string::npos);
  EXPECT_EQ(text.find("\r"), std::string::npos);
  int lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 9) << text;  // 20 % ... 100 %
  EXPECT_EQ(text.find("step 20/100 (20%)"), 0u) << text;
  EXPECT_NE(text.find("step 30/100 (30%)"), std::string::npos) << text;
  EXPECT_NE(text.find("step 100/100 (100%)"), std::string::npos) << text;
  EXPECT_EQ(text.find("step 25/"), std::string::npos) << text;

  // A slow run: 10 s per step, 1000 steps. Lines every 30 s even though 10 % takes 1000 s.
  MemoryFile slow;
  ProgressReporter slow_reporter(1000, ProgressMode::plain, slow.get());
  for (int step = 1; step <= 10; ++step) slow_reporter.update(step, step * 10.0);
  const std::string slow_text = slow.text();
  EXPECT_NE(slow_text.find("step 1/1000"), std::string::npos) << slow_text;  // first after 2 s
  EXPECT_NE(slow_text.find("step 4/1000"), std::string::npos) << slow_text;  // 40 s: 30 s later
  EXPECT_NE(slow_text.find("step 7/1000"), std::string::npos) << slow_text;
  EXPECT_EQ(slow_text.find("step 2/1000"), std::string::npos) << slow_text;
}

TEST(Progress, LiveRewritesOneLineAtMostFourTimesASecond) {
  MemoryFile out;
  ProgressReporter reporter(1000, ProgressMode::live, out.get(), 1e6);
  // One step per 0.01 s, up to 3 s: live from 2 s on, every 0.25 s -> 2.0, 2.25, 2.5, 2.75, 3.0.
  for (int step = 1; step <= 300; ++step) reporter.update(step, step / 100.0);
  std::string text = out.text();
  int rewrites = 0;
  for (char c : text) rewrites += c == '\r';
  EXPECT_EQ(rewrites, 5) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << "a live line must not scroll";
  EXPECT_NE(text.find("\rstep 200/1000 (20%)  2.0 s elapsed  ~8.0 s left  100 MPoints/s"), std::string::npos)
      << text;

  reporter.update(301, 3.01);  // not yet due; finish() shows it, then ends the line
  reporter.finish();
  text = out.text();
  EXPECT_NE(text.find("\rstep 301/1000"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  reporter.update(302, 10.0);  // after finish: nothing more
  EXPECT_EQ(out.text(), text);
}

TEST(Progress, LiveBlanksLeftoversOfALongerLine) {
  MemoryFile out;
  ProgressReporter reporter(10, ProgressMode::live, out.get());
  reporter.update(5, 2.0);   // "... ~2.0 s left"
  reporter.update(10, 4.0);  // finished: no "left" part, so shorter
  const std::string text = out.text();
  const auto second = text.rfind('\r');
  const auto first_len = second;  // first line occupies [1, second)
  EXPECT_EQ(text.size() - second, first_len) << "second line padded to the first's width";
}

TEST(Progress, AutomaticIsLiveOnlyOnATerminalThatIsNotALaunchers) {
  using Style = ProgressReporter::Style;
  EXPECT_EQ(ProgressReporter::automatic_style(true, false, nullptr), Style::live);
  EXPECT_EQ(ProgressReporter::automatic_style(false, false, nullptr), Style::plain);
  // mpirun and srun give ranks a pseudo-terminal even when the job's output goes to a file.
  EXPECT_EQ(ProgressReporter::automatic_style(true, true, nullptr), Style::plain);
  EXPECT_EQ(ProgressReporter::automatic_style(true, true, ""), Style::plain);
  EXPECT_EQ(ProgressReporter::automatic_style(true, false, "auto"), Style::live);
}

TEST(Progress, TheEnvironmentDecidesAutomatic) {
  using Style = ProgressReporter::Style;
  EXPECT_EQ(ProgressReporter::automatic_style(false, true, "live"), Style::live);
  EXPECT_EQ(ProgressReporter::automatic_style(true, false, "plain"), Style::plain);
  EXPECT_EQ(ProgressReporter::automatic_style(true, false, "off"), Style::off);
  try {
    ProgressReporter::automatic_style(true, false, "sometimes");
    FAIL() << "no error for a bad WAVE3D_PROGRESS";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("WAVE3D_PROGRESS = \"sometimes\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wave3d
