#pragma once
// Shared by the topology tests: the built-in machines, loaded once per test binary (each load parses a
// synthetic description; the topologies are immutable values, so sharing them is safe).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "topology/machines.hpp"
#include "topology/placement_plan.hpp"
#include "topology/topology.hpp"

namespace wave3d::testing {

inline const Topology& machine(std::string_view name) {
  static const Topology xeon = load_builtin_machine(xeon_e5_2699v4.name);
  static const Topology xeon4 = load_builtin_machine(xeon_e5_4620.name);
  static const Topology opteron = load_builtin_machine(opteron_8356.name);
  static const Topology epyc = load_builtin_machine(epyc_7763_nps4.name);
  if (name == xeon_e5_2699v4.name) return xeon;
  if (name == xeon_e5_4620.name) return xeon4;
  if (name == opteron_8356.name) return opteron;
  return epyc;
}

// The message of the PlacementError that make_placement_plan throws, or "" when it does not throw.
inline std::string placement_error(const Topology& topo, const PlacementRequest& req) {
  try {
    (void)make_placement_plan(topo, req);
  } catch (const PlacementError& e) {
    return e.what();
  }
  return {};
}

// EXPECT_TRUE(contains(message, "part")) prints the whole message when the part is missing.
inline ::testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" not in \"" << text << "\"";
}

}  // namespace wave3d::testing
