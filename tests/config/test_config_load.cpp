// Loading: the built-in default, a file, and defaults for keys a file leaves out.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/config_loader.hpp"
#include "config/config_schema.hpp"
#include "config/config_value.hpp"
#include "config_test_support.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d {
namespace {

using testing::TempToml;

TEST(ConfigLoad, BuiltInDefaultLoadsAndValidates) {
  const RunConfig c = load_run_config(std::nullopt, {});
  EXPECT_EQ(c.grid.n, (Index3{128, 128, 128}));
  EXPECT_EQ(c.grid.boundary, Boundary::periodic);
  EXPECT_EQ(c.grid.radius, 8);
  EXPECT_EQ(c.precision, Precision::single);
  EXPECT_EQ(c.initial.kind, InitialKind::mode);
  EXPECT_EQ(c.verify, VerifyMethod::automatic);
  EXPECT_EQ(c.steps, 40);
  EXPECT_EQ(c.initial.source, (Index3{64, 64, 64}));  // absent from the file: the grid centre
  // "Well within" the stability limit: at most half of it.
  const double courant = c.physics.velocity * c.physics.dt / c.grid.spacing;
  EXPECT_LE(courant, 0.5 * courant_limit(second_derivative_weights(c.grid.radius)));
}

TEST(ConfigLoad, EmbeddedDefaultIsConfigsDefaultToml) {
  std::ifstream in(std::string(WAVE3D_SOURCE_DIR) + "/configs/default.toml");
  ASSERT_TRUE(in) << "cannot read configs/default.toml";
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(default_config_toml(), text.str());
}

TEST(ConfigLoad, EmptyFileTakesTheSchemaDefaults) {
  const TempToml file("");
  const RunConfig c = load_run_config(file.path(), {});
  for (const KeySpec& spec : config_schema()) {
    if (spec.default_toml.empty()) continue;
    const toml::table parsed = toml::parse("v = " + std::string(spec.default_toml));
    EXPECT_EQ(value_text(spec.read(c)), value_text(*parsed.get("v"))) << spec.key;
  }
  EXPECT_EQ(c.initial.source, (Index3{32, 32, 32}));
}

TEST(ConfigLoad, FileSetsEveryKind) {
  const TempToml file(R"(# a ricker run on a zero-boundary grid
[grid]
n = [40, 30, 20]
spacing = 5          # an integer is accepted for a float key
boundary = "zero"

[stencil]
radius = 4
precision = "double"

[physics]
velocity = 2000.0
dt = 0.0005

[blocking]
size = [0, 8, 8]

[init]
policy = "serial"
condition = "ricker"
amplitude = 2.5

[source]
position = [10, 11, 12]
frequency = 25.0

[run]
steps = 7
check_every = 1
threads = 2
progress = "off"

[verify]
method = "none"
tolerance = 1e-6

[output]
directory = "/tmp/out"
name = "case-a"
steps_csv = false
)");
  const RunConfig c = load_run_config(file.path(), {});
  EXPECT_EQ(c.grid.n, (Index3{40, 30, 20}));
  EXPECT_EQ(c.grid.spacing, 5.0);
  EXPECT_EQ(c.grid.boundary, Boundary::zero);
  EXPECT_EQ(c.grid.radius, 4);
  EXPECT_EQ(c.precision, Precision::double_);
  EXPECT_EQ(c.physics.velocity, 2000.0);
  EXPECT_EQ(c.physics.dt, 0.0005);
  EXPECT_EQ(c.blocking.size, (Index3{0, 8, 8}));
  EXPECT_EQ(c.memory.policy, MemoryPolicy::serial);
  EXPECT_EQ(c.initial.kind, InitialKind::ricker);
  EXPECT_EQ(c.initial.amplitude, 2.5);
  EXPECT_EQ(c.initial.source, (Index3{10, 11, 12}));
  EXPECT_EQ(c.initial.frequency, 25.0);
  EXPECT_EQ(c.steps, 7);
  EXPECT_EQ(c.check_every, 1);
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.progress, ProgressMode::off);
  EXPECT_EQ(c.verify, VerifyMethod::none);
  EXPECT_EQ(c.verify_tolerance, 1e-6);
  EXPECT_EQ(c.output.directory, "/tmp/out");
  EXPECT_EQ(c.output.name, "case-a");
  EXPECT_FALSE(c.output.steps_csv);
}

TEST(ConfigLoad, DottedKeysAndInlineTablesAreTheSameKeys) {
  const TempToml file("run.steps = 3\ngrid = { n = [16, 16, 16] }\n");
  const RunConfig c = load_run_config(file.path(), {});
  EXPECT_EQ(c.steps, 3);
  EXPECT_EQ(c.grid.n, (Index3{16, 16, 16}));
}

TEST(ConfigLoad, EmptySectionIsAllowed) {
  const TempToml file("[output]\n# nothing set here\n[run]\nsteps = 2\n");
  EXPECT_EQ(load_run_config(file.path(), {}).steps, 2);
}

TEST(ConfigLoad, AutoMapsToTheAutomaticEnumerators) {
  const TempToml file("[run]\nprogress = \"auto\"\n[verify]\nmethod = \"auto\"\n");
  const RunConfig c = load_run_config(file.path(), {});
  EXPECT_EQ(c.progress, ProgressMode::automatic);
  EXPECT_EQ(c.verify, VerifyMethod::automatic);
}

}  // namespace
}  // namespace wave3d
