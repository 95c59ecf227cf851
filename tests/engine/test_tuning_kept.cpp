// Where a measured blocking goes (engine/blocking_tuning.hpp): into the tuning cache, unless the
// machine's pace moved during its search, and what the summary says about it either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "engine/blocking_tuning.hpp"
#include "solver/tuning_cache.hpp"

namespace wave3d::engine {
namespace {

class KeptTuning : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("wave3d-kept-" + std::to_string(::getpid()) + "-" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::path file = dir / "blocking.json";
  const TuningKey key{"cpu", 2, "auto", 8, "single", {256, 256, 256}, true, true, 4};
  void TearDown() override { std::filesystem::remove_all(dir); }

  static TunedBlocking measured_blocking(const std::string& pace_note) {
    TunedBlocking t;
    t.source = "measured";
    t.blocking = Blocking{{0, 32, 8}, 1};
    t.measured.blocking = t.blocking;
    t.measured.measured = {{Blocking{{0, 64, 16}}, 1000.0}, {t.blocking, 1500.0}, {Blocking{{0, 64, 16}}, 1450.0}};
    t.measured.pace_note = pace_note;
    return t;
  }
};

TEST_F(KeptTuning, AChoiceMadeWhileThePaceMovedIsNotCachedAndTheSummarySaysWhy) {
  const std::string note = "the machine's pace moved during the search: its first candidate ran 1.45x as fast "
                           "when measured again as at first";
  TunedBlocking t = measured_blocking(note);
  t.cache_file = file.string();
  EXPECT_EQ(keep_in_cache(file, key, t.measured), "");
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_FALSE(read_tuning_cache(file, key).has_value());  // the next run measures again
  EXPECT_NE(t.summary_line().find(", not kept in " + file.string() + ": " + note), std::string::npos)
      << t.summary_line();
  EXPECT_EQ(t.to_json().at("pace_note"), note);
}

TEST_F(KeptTuning, AChoiceMadeAtASteadyPaceIsCached) {
  TunedBlocking t = measured_blocking("");
  t.cache_file = file.string();
  EXPECT_EQ(keep_in_cache(file, key, t.measured), "");
  const auto read = read_tuning_cache(file, key);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->blocking.size, (Index3{0, 32, 8}));
  EXPECT_NE(t.summary_line().find(", kept in " + file.string()), std::string::npos) << t.summary_line();
  EXPECT_TRUE(t.to_json().at("pace_note").is_null());
}

TEST_F(KeptTuning, AnUnwritableCacheIsReported) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path blocked = dir / "a-file";
  { std::ofstream(blocked) << "x"; }
  const std::string why = keep_in_cache(blocked / "blocking.json", key, measured_blocking("").measured);
  EXPECT_EQ(why.rfind("the tuned blocking was not kept: ", 0), 0u) << why;
}

}  // namespace
}  // namespace wave3d::engine
