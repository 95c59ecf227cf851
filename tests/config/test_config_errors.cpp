// Every kind of configuration error: one line naming the key, the value, where it came from and
// what is allowed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "config/config_loader.hpp"
#include "config_test_support.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d {
namespace {

using testing::config_error_of;
using testing::expect_message;
using testing::TempToml;

std::string file_error(const std::string& text, std::vector<std::string> overrides = {}) {
  const TempToml file(text);
  std::string message = config_error_of([&] { load_run_config(file.path(), overrides); });
  // Report the file by a stable name so tests can match "x.toml:LINE".
  for (auto at = message.find(file.path()); at != std::string::npos; at = message.find(file.path()))
    message.replace(at, file.path().size(), "x.toml");
  return message;
}

std::string set_error(std::vector<std::string> overrides) {
  return config_error_of([&] { load_run_config(std::nullopt, overrides); });
}

// ---- syntax, files, overrides -------------------------------------------------------------------

TEST(ConfigError, TomlSyntaxErrorNamesFileAndLine) {
  const std::string m = file_error("[grid]\nspacing = 10.0\nn = [1, 2\n");
  expect_message(m, {"x.toml:3", "TOML syntax error"});
}

TEST(ConfigError, MissingFile) {
  const std::string m = config_error_of([] { load_run_config("/nonexistent/wave3d.toml", {}); });
  expect_message(m, {"/nonexistent/wave3d.toml", "not found"});
}

TEST(ConfigError, DirectoryInsteadOfFile) {
  const std::string m = config_error_of([] { load_run_config("/tmp", {}); });
  expect_message(m, {"/tmp", "directory"});
}

TEST(ConfigError, MalformedOverride) {
  expect_message(set_error({"run.steps"}), {"--set", "malformed override 'run.steps'", "key=value"});
  expect_message(set_error({"=5"}), {"--set", "malformed override '=5'"});
}

TEST(ConfigError, OverrideThatLooksLikeTomlButIsNot) {
  expect_message(set_error({"grid.n=[1, 2"}), {"--set", "grid.n = [1, 2", "not valid TOML", "allowed: 3 integers"});
}

// ---- unknown keys --------------------------------------------------------------------------------

TEST(ConfigError, UnknownKeyInFileSuggestsTheClosest) {
  expect_message(file_error("[stencil]\nraduis = 4\n"), {"x.toml:2", "unknown key stencil.raduis", "did you mean stencil.radius?"});
}

TEST(ConfigError, UnknownSectionSuggestsTheClosest) {
  expect_message(file_error("[gird]\nn = [8, 8, 8]\n"), {"x.toml:2", "unknown key gird.n", "did you mean grid.n?"});
  // A section written as a value or as an array of tables says what was expected there.
  expect_message(file_error("grid = 5\n"), {"x.toml:1", "grid is a section, a table written [grid] with keys such as n,",
                                             "here it is an integer"});
  expect_message(file_error("[[grid]]\nn = [8, 8, 8]\n"), {"x.toml:1", "grid is a section", "here it is an array of tables"});
}

TEST(ConfigError, RightNameInTheWrongSection) {
  expect_message(set_error({"grid.radius=4"}), {"--set", "unknown key grid.radius", "did you mean stencil.radius?"});
  expect_message(set_error({"grid=5"}), {"--set: grid is a section, not a setting; set one of its keys (grid.n, grid.spacing"});
  expect_message(file_error("steps = 4\n"), {"x.toml:1", "unknown key steps", "did you mean blocking.steps or run.steps?"});
}

TEST(ConfigError, AutoKeysNameAutoAmongTheAllowedValues) {
  expect_message(set_error({"blocking.size=fast"}), {"--set", "blocking.size = \"fast\" is not allowed",
                                                     "3 integers, each >= 0 or \"auto\""});
  expect_message(set_error({"blocking.steps=0"}), {"blocking.steps = 0 is out of range", "from 1 to 64 or \"auto\""});
  expect_message(set_error({"blocking.prefetch_rows=5"}),
                 {"blocking.prefetch_rows = 5 is out of range", "from 1 to 4 or \"auto\""});
}

TEST(ConfigError, UnknownKeyWithNothingClose) {
  const std::string m = set_error({"colour.scheme=dark"});
  expect_message(m, {"--set", "unknown key colour.scheme", "--help"});
  EXPECT_EQ(m.find("did you mean"), std::string::npos) << m;
}

TEST(ConfigError, UnknownEmptySection) {
  expect_message(file_error("[grid]\nspacing = 10.0\n[extras]\n"), {"x.toml:3", "unknown key extras"});
}

TEST(ConfigError, ValueWhereASectionBelongs) {
  expect_message(file_error("grid = 3\n"), {"x.toml:1", "grid is a section", "here it is an integer"});
}

// ---- wrong type -----------------------------------------------------------------------------------

TEST(ConfigError, WrongTypeInFile) {
  expect_message(file_error("[grid]\nspacing = \"ten\"\n"),
                 {"x.toml:2: grid.spacing = \"ten\" is a string, expected a number", "allowed: number > 0"});
}

TEST(ConfigError, WrongTypeInOverride) {
  expect_message(set_error({"run.steps=abc"}), {"--set: run.steps = \"abc\"", "expected an integer", "allowed: integer from 1"});
  expect_message(set_error({"run.steps=2.5"}), {"--set: run.steps = 2.5 is a float, expected an integer"});
  expect_message(set_error({"output.steps_csv=1"}), {"--set: output.steps_csv = 1", "expected true or false"});
  expect_message(set_error({"grid.n=512"}), {"--set: grid.n = 512 is an integer, expected an array of 3 integers"});
}

TEST(ConfigError, TableWhereAValueBelongs) {
  expect_message(file_error("[grid.n]\nx = 1\n"), {"x.toml:1", "grid.n = {x = 1} is a table"});
}

TEST(ConfigError, WrongElementType) {
  expect_message(set_error({"grid.n=64,64.5,64"}), {"--set: grid.n = [64, 64.5, 64] has a float element, expected 3 integers"});
}

// ---- array length -----------------------------------------------------------------------------------

TEST(ConfigError, WrongArrayLength) {
  expect_message(file_error("[grid]\n\nn = [64, 64]\n"),
                 {"x.toml:3: grid.n = [64, 64] has 2 elements, expected 3", "allowed: 3 integers, each >= 1"});
  expect_message(set_error({"blocking.size=1,2,3,4"}), {"--set: blocking.size = [1, 2, 3, 4] has 4 elements, expected 3"});
}

// ---- allowed set and range ---------------------------------------------------------------------------

TEST(ConfigError, NumberNotInTheAllowedSet) {
  const std::string m = file_error("# line 1\n\n\n\n\n[stencil]\nradius = 3\n");
  EXPECT_EQ(m, "x.toml:7: stencil.radius = 3 is not allowed; allowed: 1, 2, 4, 8");
}

TEST(ConfigError, WordNotInTheAllowedSet) {
  expect_message(set_error({"grid.boundary=open"}),
                 {"--set: grid.boundary = \"open\" is not allowed", R"(allowed: "zero", "periodic")"});
  expect_message(set_error({"init.policy=first_touch"}),
                 {"--set: init.policy = \"first_touch\" is not allowed", R"(allowed: "first-touch", "serial")"});
}

TEST(ConfigError, OutOfRange) {
  expect_message(set_error({"physics.velocity=-5"}), {"--set: physics.velocity = -5 is out of range", "allowed: number > 0"});
  expect_message(set_error({"grid.spacing=0"}), {"grid.spacing = 0 is out of range", "> 0"});
  expect_message(set_error({"run.threads=-1"}), {"run.threads = -1 is out of range", "allowed: integer from 0"});
  expect_message(set_error({"run.check_every=0"}), {"run.check_every = 0 is out of range"});
  expect_message(set_error({"run.steps=3000000000"}), {"run.steps = 3000000000 is out of range", "2147483647"});
  expect_message(set_error({"verify.tolerance=-1e-3"}), {"verify.tolerance = -0.001 is out of range", ">= 0"});
  expect_message(set_error({"grid.n=0,8,8"}), {"grid.n = [0, 8, 8] is out of range", "each >= 1"});
  expect_message(set_error({"blocking.size=0,-1,0"}), {"blocking.size = [0, -1, 0] is out of range", "each >= 0"});
}

TEST(ConfigError, NotAFiniteNumber) {
  expect_message(set_error({"init.amplitude=nan"}), {"init.amplitude = nan is not a finite number"});
  expect_message(set_error({"physics.dt=inf"}), {"physics.dt = inf is not a finite number"});
}

// ---- rules between keys ------------------------------------------------------------------------------

TEST(ConfigError, ModeNeedsPeriodic) {
  expect_message(set_error({"grid.boundary=zero"}),
                 {"built-in configs/default.toml:", R"(init.condition = "mode" requires grid.boundary = "periodic")",
                  R"(grid.boundary = "zero" (--set))", "allowed"});
  // The file's line for the key it gave, "default" for the one it left out.
  expect_message(file_error("[grid]\nboundary = \"zero\"\n"),
                 {R"(default: init.condition = "mode" requires)", R"(grid.boundary = "zero" (x.toml:2))"});
}

TEST(ConfigError, PeriodicGridAtLeastRadius) {
  expect_message(set_error({"grid.n=4,64,64"}),
                 {"--set: grid.n = [4, 64, 64] is too small", "stencil.radius = 8 (built-in configs/default.toml:",
                  R"(grid.boundary = "periodic")", "allowed: each grid.n >= 8"});
  EXPECT_NO_THROW(load_run_config(std::nullopt, {"grid.n=8,8,8"}));
}

TEST(ConfigError, ZeroBoundaryGridAtLeastTwoRadiiPlusOne) {
  const std::vector<std::string> base{"init.condition=seed-cube", "grid.boundary=zero", "stencil.radius=4"};
  auto overrides = base;
  overrides.push_back("grid.n=64,8,64");
  expect_message(set_error(overrides), {"grid.n = [64, 8, 64] is too small", "stencil.radius = 4 (--set)",
                                        R"(grid.boundary = "zero" (--set))", "allowed: each grid.n >= 9"});
  overrides.back() = "grid.n=64,9,64";
  EXPECT_NO_THROW(load_run_config(std::nullopt, overrides));
}

TEST(ConfigError, SourceOutsideTheGrid) {
  expect_message(set_error({"init.condition=ricker", "source.position=200,0,0"}),
                 {"--set: source.position = [200, 0, 0] is outside", "grid.n = [128, 128, 128]",
                  "allowed: 0 <= position < n on each axis"});
  // Zero boundaries: the outer radius layer is not updated, so it does not count.
  expect_message(set_error({"init.condition=ricker", "grid.boundary=zero", "source.position=7,64,64"}),
                 {"source.position = [7, 64, 64] is outside", "allowed: 8 <= position < n - 8"});
  EXPECT_NO_THROW(load_run_config(std::nullopt, {"init.condition=ricker", "grid.boundary=zero", "source.position=8,64,119"}));
}

TEST(ConfigError, UnstableTimeStep) {
  const double limit = courant_limit(second_derivative_weights(8));
  const std::string m = set_error({"physics.dt=0.01"});
  expect_message(m, {"--set: physics.dt = 0.01 is unstable", "Courant number velocity*dt/spacing = 1.5",
                     fmt::format("limit {:.6g}", limit), "stencil.radius = 8", "largest stable dt",
                     "physics.velocity = 1500.0", "grid.spacing = 10.0"});
  // The dt the message offers is itself accepted.
  const auto at = m.find("physics.dt <= ");
  ASSERT_NE(at, std::string::npos) << m;
  const std::string largest = m.substr(at + 14, m.find(' ', at + 14) - (at + 14));
  EXPECT_NO_THROW(load_run_config(std::nullopt, {"physics.dt=" + largest})) << largest;
  EXPECT_GT(std::stod(largest), 0.99 * limit * 10.0 / 1500.0);
}

TEST(ConfigError, ExactVerificationNeedsMode) {
  expect_message(set_error({"init.condition=seed-cube", "verify.method=exact"}),
                 {R"(--set: verify.method = "exact" requires init.condition = "mode")",
                  R"(init.condition = "seed-cube" (--set))", R"(allowed: verify.method = "auto", "none")"});
}

}  // namespace
}  // namespace wave3d

namespace wave3d {
namespace {

TEST(ConfigError, ProgressNeedsOverlap) {
  expect_message(set_error({"parallel.halo=bulk", "parallel.progress=thread"}),
                 {R"(--set: parallel.progress = "thread" requires parallel.halo = "overlap")",
                  R"(parallel.halo = "bulk" (--set))", R"(allowed with bulk: parallel.progress = "none")"});
  EXPECT_NO_THROW(load_run_config(std::nullopt, {"parallel.halo=overlap", "parallel.progress=poll"}));
  // The default engine does not stand in the way of a bulk run.
  EXPECT_NO_THROW(load_run_config(std::nullopt, {"parallel.halo=bulk"}));
}

TEST(ConfigError, ProgressCoreNeedsProgressThread) {
  expect_message(set_error({"parallel.progress_core=1"}),
                 {"--set: parallel.progress_core = 1 names a core for a progress thread",
                  R"(parallel.progress = "poll")", "allowed"});
  EXPECT_NO_THROW(load_run_config(std::nullopt, {"parallel.progress=thread", "parallel.progress_core=1"}));
}

TEST(ConfigError, ParallelWordsAndRanges) {
  expect_message(set_error({"parallel.halo=diagonal"}), {"parallel.halo", "diagonal", R"("bulk", "overlap")"});
  expect_message(set_error({"parallel.process_grid=-1,1,1"}), {"parallel.process_grid", ">= 0"});
  expect_message(set_error({"debug.fail_rank=-2"}), {"debug.fail_rank = -2", "from -1"});
}

}  // namespace
}  // namespace wave3d
