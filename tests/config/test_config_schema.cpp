// The schema itself: the key set, the help text generated from it, and the enum words.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "config/config_help.hpp"
#include "config/config_resolve.hpp"
#include "config/config_schema.hpp"
#include "config/enum_names.hpp"

namespace wave3d {
namespace {

TEST(ConfigSchema, HasExactlyTheDocumentedKeys) {
  const std::set<std::string> expected{
      "grid.n",           "grid.spacing",     "grid.boundary",   "stencil.radius",   "stencil.precision", "stencil.kernel", "stencil.denormals",
      "physics.velocity", "physics.dt",       "blocking.size",   "blocking.steps", "blocking.prefetch_rows", "blocking.cache", "init.policy",      "init.condition",
      "init.amplitude",   "init.wave",        "source.position", "source.frequency", "run.steps",
      "run.check_every",  "run.threads",      "run.progress",    "verify.method",    "verify.tolerance",
      "output.directory", "output.name",      "output.steps_csv", "parallel.process_grid", "parallel.halo",
      "parallel.temporal_halo",
      "parallel.progress", "parallel.progress_core", "debug.fail_rank", "debug.fail_step", "init.numa_node", "init.huge_pages", "placement.layout", "placement.reserve",
      "placement.smt", "placement.high_bandwidth_memory", "placement.strict", "debug.unbound_rank",
      "output.snapshot_every", "output.snapshot_writer", "output.io_threads", "checkpoint.every", "checkpoint.directory", "checkpoint.keep", "restart.from",
      "debug.stall_in_checkpoint", "counters.enabled", "counters.events"};
  std::set<std::string> actual;
  for (const KeySpec& spec : config_schema()) {
    EXPECT_TRUE(actual.insert(std::string(spec.key)).second) << "listed twice: " << spec.key;
    EXPECT_FALSE(spec.doc.empty()) << spec.key;
    EXPECT_NE(spec.apply, nullptr) << spec.key;
    EXPECT_NE(spec.read, nullptr) << spec.key;
  }
  EXPECT_EQ(actual, expected);
}

TEST(ConfigSchema, HelpTextDocumentsEveryKeyAndRule) {
  const std::string help = config_help_text();
  for (const KeySpec& spec : config_schema()) {
    const auto at = help.find("  " + std::string(spec.key) + "  (");
    ASSERT_NE(at, std::string::npos) << spec.key;
    const std::string entry = help.substr(at, help.find('\n', help.find('\n', at) + 1) - at);
    EXPECT_NE(entry.find(kind_text(spec.kind)), std::string::npos) << entry;
    EXPECT_NE(entry.find(allowed_text(spec)), std::string::npos) << entry;
    EXPECT_NE(entry.find(spec.doc), std::string::npos) << entry;
    if (!spec.default_toml.empty()) {
      EXPECT_NE(entry.find("default " + std::string(spec.default_toml)), std::string::npos) << entry;
    }
  }
  for (const CrossKeyRule& rule : cross_key_rules()) EXPECT_NE(help.find(rule.summary), std::string::npos) << rule.summary;
}

TEST(ConfigSchema, AllowedTextOfEachKind) {
  EXPECT_EQ(allowed_text(*find_key_spec("stencil.radius")), "1, 2, 4, 8");
  EXPECT_EQ(allowed_text(*find_key_spec("grid.boundary")), R"("zero", "periodic")");
  EXPECT_EQ(allowed_text(*find_key_spec("grid.spacing")), "number > 0");
  EXPECT_EQ(allowed_text(*find_key_spec("grid.n")), "3 integers, each >= 1");
  EXPECT_EQ(allowed_text(*find_key_spec("output.name")), "any string");
  EXPECT_EQ(allowed_text(*find_key_spec("output.steps_csv")), "true, false");
}

TEST(ConfigSchema, ClosestKey) {
  EXPECT_EQ(closest_key("stencil.raduis"), "stencil.radius");
  EXPECT_EQ(closest_key("grid.boundry"), "grid.boundary");
  EXPECT_EQ(closest_key("physics.radius"), "stencil.radius");
  EXPECT_EQ(closest_key("steps"), "blocking.steps or run.steps");
  EXPECT_EQ(closest_key("totally.unrelated"), std::nullopt);
}

template <typename E>
void expect_names_round_trip() {
  for (std::string_view name : EnumNames<E>::names) {
    const auto value = enum_from_name<E>(name);
    ASSERT_TRUE(value.has_value()) << name;
    EXPECT_EQ(enum_name(*value), name);
  }
  EXPECT_FALSE(enum_from_name<E>("no-such-word").has_value());
}

TEST(ConfigSchema, EnumNamesRoundTrip) {
  expect_names_round_trip<Boundary>();
  expect_names_round_trip<Precision>();
  expect_names_round_trip<MemoryPolicy>();
  expect_names_round_trip<InitialKind>();
  expect_names_round_trip<ProgressMode>();
  expect_names_round_trip<VerifyMethod>();
  EXPECT_EQ(enum_name(ProgressMode::automatic), "auto");
  EXPECT_EQ(enum_name(VerifyMethod::automatic), "auto");
  EXPECT_EQ(enum_name(Precision::double_), "double");
}

}  // namespace
}  // namespace wave3d
