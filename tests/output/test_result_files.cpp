#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <regex>

#include "output/result_files.hpp"
#include "temp_dir.hpp"

namespace wave3d {
namespace {

using wave3d::testing::TempDir;
namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool has_temporaries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

TEST(AtomicWrite, WritesCompleteFileAndLeavesNoTemporary) {
  const TempDir tmp;
  const fs::path file = tmp.path() / "data.txt";
  const std::string big(1 << 20, 'x');
  write_file_atomically(file, big);
  EXPECT_EQ(read_all(file), big);
  write_file_atomically(file, "replaced\n");  // replaces an existing file
  EXPECT_EQ(read_all(file), "replaced\n");
  EXPECT_FALSE(has_temporaries(tmp.path()));
}

TEST(AtomicWrite, FailureThrowsWithPathAndLeavesNoTemporary) {
  const TempDir tmp;
  // A regular file as the "directory": unwritable for everyone, root included.
  const fs::path not_a_dir = tmp.path() / "plain-file";
  write_file_atomically(not_a_dir, "x");
  const fs::path target = not_a_dir / "run.json";
  try {
    write_file_atomically(target, "{}");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Not a directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_file_atomically(tmp.path() / "missing" / "x.txt", "x"), std::runtime_error);

  // A directory without write permission (only meaningful when not running as root).
  if (::geteuid() != 0) {
    const fs::path locked = tmp.path() / "locked";
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(write_file_atomically(locked / "x.txt", "x"), std::runtime_error);
    fs::permissions(locked, fs::perms::owner_all);
    EXPECT_FALSE(has_temporaries(locked));
  }
  EXPECT_FALSE(has_temporaries(tmp.path()));
}

TEST(AtomicWrite, JsonIsPrettyWithTwoSpaces) {
  const TempDir tmp;
  const fs::path file = tmp.path() / "run.json";
  write_json_atomically(file, nlohmann::json{{"a", 1}, {"b", {{"c", "d"}}}});
  EXPECT_EQ(read_all(file), "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": \"d\"\n  }\n}\n");
}

TEST(RunDirectory, CreatesParentsAndDefaultName) {
  const TempDir tmp;
  const auto started = std::chrono::system_clock::from_time_t(86400 + 3661);  // 1970-01-02 01:01:01
  EXPECT_EQ(default_run_name(started, "node 1/a", 77), "19700102-010101-node_1_a-77");

  const fs::path named = create_run_directory(tmp.path() / "a" / "b", "first", started);
  EXPECT_EQ(named, tmp.path() / "a" / "b" / "first");
  EXPECT_TRUE(fs::is_directory(named));

  const fs::path automatic = create_run_directory(tmp.path(), "", started);
  EXPECT_TRUE(fs::is_directory(automatic));
  const std::regex pattern(R"(19700102-010101-[A-Za-z0-9._-]+-[0-9]+)");
  EXPECT_TRUE(std::regex_match(automatic.filename().string(), pattern)) << automatic;
  EXPECT_THROW(create_run_directory(tmp.path(), "../escape", started), std::invalid_argument);
}

TEST(RunDirectory, RefusesDirectoryHoldingRunJson) {
  const TempDir tmp;
  const auto now = std::chrono::system_clock::now();
  const fs::path dir = create_run_directory(tmp.path(), "again", now);
  EXPECT_EQ(create_run_directory(tmp.path(), "again", now), dir);  // no run.json yet: reusable
  write_json_atomically(dir / "run.json", nlohmann::json::object());
  try {
    create_run_directory(tmp.path(), "again", now);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
}

TEST(StepsCsv, TwoRanks) {
  std::vector<StepTimes> ranks(2, StepTimes(2, {"halo", "compute", "total"}));
  ranks[0].record(0, "halo", 0.001);
  ranks[0].record(0, "compute", 0.5);
  ranks[0].record(0, "total", 0.501);
  ranks[0].record(1, "halo", 1.0 / 3.0);
  ranks[0].record(1, "compute", 2.0);
  ranks[0].record(1, "total", 2.25);
  ranks[1].record(0, "halo", 1e-7);
  ranks[1].record(0, "total", 0.75);  // compute left unrecorded: empty field
  ranks[1].record(1, "halo", 0.0);
  ranks[1].record(1, "compute", 123456.789);
  ranks[1].record(1, "total", 123456.8);
  EXPECT_EQ(format_steps_csv(ranks),
            "rank,step,halo,compute,total\n"
            "0,1,0.001,0.5,0.501\n"
            "0,2,0.333333333,2,2.25\n"
            "1,1,1e-07,,0.75\n"
            "1,2,0,123456.789,123456.8\n");
  // A run continued from the checkpoint of step 40 numbers its steps from 41, as its snapshots are.
  EXPECT_EQ(format_steps_csv(ranks, 41).substr(0, 60).find("0,41,0.001"), std::string("rank,step,halo,compute,total\n").size());

  const TempDir tmp;
  write_steps_csv(tmp.path() / "steps.csv", ranks);
  EXPECT_EQ(read_all(tmp.path() / "steps.csv"), format_steps_csv(ranks));

  std::vector<StepTimes> mismatched{StepTimes(1, {"halo"}), StepTimes(1, {"compute"})};
  EXPECT_THROW(format_steps_csv(mismatched), std::invalid_argument);
  EXPECT_THROW(format_steps_csv({}), std::invalid_argument);
}

}  // namespace
}  // namespace wave3d
