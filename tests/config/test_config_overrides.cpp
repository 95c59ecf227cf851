// --set key=value overrides: every kind of value, layering over the file, and the conveniences.
#include <gtest/gtest.h>

#include "config/config_loader.hpp"
#include "config_test_support.hpp"

namespace wave3d {
namespace {

using testing::TempToml;

RunConfig with(std::vector<std::string> overrides) { return load_run_config(std::nullopt, overrides); }

TEST(ConfigOverride, Integer) { EXPECT_EQ(with({"run.steps=20"}).steps, 20); }

TEST(ConfigOverride, Float) { EXPECT_EQ(with({"physics.dt=0.0005"}).physics.dt, 0.0005); }

TEST(ConfigOverride, IntegerForAFloatKey) { EXPECT_EQ(with({"grid.spacing=20"}).grid.spacing, 20.0); }

TEST(ConfigOverride, BareWordIsAString) {
  EXPECT_EQ(with({"stencil.precision=double"}).precision, Precision::double_);
  EXPECT_EQ(with({"run.progress=plain"}).progress, ProgressMode::plain);
  EXPECT_EQ(with({"output.directory=results/x"}).output.directory, "results/x");
}

TEST(ConfigOverride, QuotedString) { EXPECT_EQ(with({R"(output.name="my run")"}).output.name, "my run"); }

TEST(ConfigOverride, StringKeyKeepsTheTextAsWritten) {
  EXPECT_EQ(with({"output.name=2024"}).output.name, "2024");
  EXPECT_EQ(with({"output.name="}).output.name, "");
}

TEST(ConfigOverride, ListWithoutBrackets) { EXPECT_EQ(with({"grid.n=512,512,256"}).grid.n, (Index3{512, 512, 256})); }

TEST(ConfigOverride, ListWithBrackets) {
  EXPECT_EQ(with({"blocking.size=[0, 8, 32]"}).blocking.size, (Index3{0, 8, 32}));
}

TEST(ConfigOverride, Boolean) { EXPECT_FALSE(with({"output.steps_csv=false"}).output.steps_csv); }

TEST(ConfigOverride, AutoWord) { EXPECT_EQ(with({"verify.method=auto"}).verify, VerifyMethod::automatic); }

TEST(ConfigOverride, SpacesAroundTheEqualsSign) { EXPECT_EQ(with({" run.steps = 7 "}).steps, 7); }

TEST(ConfigOverride, LaterOverrideWins) { EXPECT_EQ(with({"run.steps=5", "run.steps=6"}).steps, 6); }

TEST(ConfigOverride, SeveralKeysTogetherMakeAValidChange) {
  // Each alone would break a rule (mode needs periodic); together they are consistent.
  const RunConfig c = with({"init.condition=ricker", "grid.boundary=zero", "source.position=20,30,40"});
  EXPECT_EQ(c.initial.kind, InitialKind::ricker);
  EXPECT_EQ(c.grid.boundary, Boundary::zero);
  EXPECT_EQ(c.initial.source, (Index3{20, 30, 40}));
}

TEST(ConfigOverride, ReplacesAFileValueAndSetsKeysTheFileLacks) {
  const TempToml file("[grid]\nn = [32, 32, 32]\n");
  const RunConfig c = load_run_config(file.path(), {"grid.n=24,24,24", "run.steps=9"});
  EXPECT_EQ(c.grid.n, (Index3{24, 24, 24}));
  EXPECT_EQ(c.steps, 9);
  EXPECT_EQ(c.initial.source, (Index3{12, 12, 12}));  // the centre of the final grid
}

}  // namespace
}  // namespace wave3d
