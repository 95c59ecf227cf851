// config_to_json / config_from_json: the TOML layout in JSON, and an exact round trip.
#include <gtest/gtest.h>

#include "config/config_json.hpp"
#include "config/config_loader.hpp"
#include "config_test_support.hpp"

namespace wave3d {
namespace {

using testing::config_error_of;
using testing::expect_message;

// Field by field, so a field the JSON forgot to carry fails here even if both sides print alike.
void expect_same(const RunConfig& a, const RunConfig& b) {
  EXPECT_EQ(a.grid.n, b.grid.n);
  EXPECT_EQ(a.grid.spacing, b.grid.spacing);
  EXPECT_EQ(a.grid.boundary, b.grid.boundary);
  EXPECT_EQ(a.grid.radius, b.grid.radius);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.physics.velocity, b.physics.velocity);
  EXPECT_EQ(a.physics.dt, b.physics.dt);
  EXPECT_EQ(a.blocking.size, b.blocking.size);
  EXPECT_EQ(a.memory.policy, b.memory.policy);
  EXPECT_EQ(a.memory.node, b.memory.node);
  EXPECT_EQ(a.initial.kind, b.initial.kind);
  EXPECT_EQ(a.initial.amplitude, b.initial.amplitude);
  EXPECT_EQ(a.initial.wave, b.initial.wave);
  EXPECT_EQ(a.initial.source, b.initial.source);
  EXPECT_EQ(a.initial.frequency, b.initial.frequency);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.check_every, b.check_every);
  EXPECT_EQ(a.verify, b.verify);
  EXPECT_EQ(a.verify_tolerance, b.verify_tolerance);
  EXPECT_EQ(a.progress, b.progress);
  EXPECT_EQ(a.output.directory, b.output.directory);
  EXPECT_EQ(a.output.name, b.output.name);
  EXPECT_EQ(a.output.steps_csv, b.output.steps_csv);
  EXPECT_EQ(a.threads, b.threads);
}

// Through text, as the broadcast to other ranks does it.
RunConfig round_trip(const RunConfig& c) { return config_from_json(nlohmann::json::parse(config_to_json(c).dump())); }

TEST(ConfigJson, UsesTheTomlLayoutAndWords) {
  const nlohmann::json j = config_to_json(load_run_config(std::nullopt, {}));
  EXPECT_EQ(j["grid"]["n"], nlohmann::json::array({128, 128, 128}));
  EXPECT_EQ(j["grid"]["boundary"], "periodic");
  EXPECT_EQ(j["stencil"]["radius"], 8);
  EXPECT_EQ(j["stencil"]["precision"], "single");
  EXPECT_EQ(j["init"]["policy"], "first-touch");
  EXPECT_EQ(j["init"]["condition"], "mode");
  EXPECT_EQ(j["run"]["progress"], "auto");
  EXPECT_EQ(j["verify"]["method"], "auto");
  EXPECT_EQ(j["source"]["position"], nlohmann::json::array({64, 64, 64}));  // resolved
  EXPECT_EQ(j["output"]["steps_csv"], true);
  // grid stencil physics blocking init source run verify output checkpoint restart parallel placement debug
  // counters
  EXPECT_EQ(j.size(), 15u);
}

TEST(ConfigJson, RoundTripOfTheDefault) {
  const RunConfig c = load_run_config(std::nullopt, {});
  expect_same(round_trip(c), c);
}

TEST(ConfigJson, RoundTripWithEveryValueChanged) {
  const RunConfig c = load_run_config(
      std::nullopt, {"grid.n=40,30,20", "grid.spacing=3.3", "grid.boundary=zero", "stencil.radius=4",
                     "stencil.precision=double", "physics.velocity=1234.5", "physics.dt=0.000123456789",
                     "blocking.size=0,4,8", "init.policy=serial", "init.condition=ricker", "init.amplitude=-0.1",
                     "init.wave=2,-3,4", "source.position=5,6,7", "source.frequency=12.5", "run.steps=3",
                     "run.check_every=2", "run.threads=3", "run.progress=live", "verify.method=none",
                     "verify.tolerance=1e-9", "output.directory=a/b", "output.name=n", "output.steps_csv=false"});
  const RunConfig back = round_trip(c);
  expect_same(back, c);
  EXPECT_EQ(config_to_json(back), config_to_json(c));
}

TEST(ConfigJson, FromJsonChecksLikeAFile) {
  nlohmann::json j = config_to_json(load_run_config(std::nullopt, {}));
  j["stencil"]["radius"] = 3;
  expect_message(config_error_of([&] { config_from_json(j); }), {"json: stencil.radius = 3 is not allowed", "1, 2, 4, 8"});
  j["stencil"]["radius"] = 8;
  j["run"]["setps"] = 3;
  expect_message(config_error_of([&] { config_from_json(j); }), {"json: unknown key run.setps", "run.steps"});
  expect_message(config_error_of([] { config_from_json(nlohmann::json::array()); }), {"json", "expected an object"});
}

}  // namespace
}  // namespace wave3d
