// The node map and plan summary that `wave3d plan` prints.
#include <gtest/gtest.h>

#include "topology/plan_report.hpp"
#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::contains;
using testing::machine;

TEST(PlanReport, MapMarksThreadsProgressReservedAndUnusedCores) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan =
      make_placement_plan(topo, {.layout = Layout::rank_per_socket, .threads_per_rank = 16,
                                 .reserve = ReservedCores::per_node(3), .progress_thread = true});
  const std::string map = render_node_map(topo, plan);
  EXPECT_TRUE(contains(map, "socket 0 (NUMA node 0):\n   0:0.0 "));
  EXPECT_TRUE(contains(map, "socket 1 (NUMA node 1):\n  22:1.0 "));
  EXPECT_TRUE(contains(map, " 15:0.15"));
  EXPECT_TRUE(contains(map, " 16:. "));
  EXPECT_TRUE(contains(map, " 21:P0"));  // socket 0's only reserved core
  EXPECT_TRUE(contains(map, " 42:P1"));  // socket 1's first reserved core ...
  EXPECT_TRUE(contains(map, " 43:R"));   // ... and its idle second one
}

TEST(PlanReport, MapShowsNumaNodesInsideASocketAndSmtThreads) {
  const Topology& topo = machine("epyc-7763-nps4");
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_numa, .use_smt = true});
  const std::string map = render_node_map(topo, plan);
  EXPECT_TRUE(contains(map, "socket 1:\n  NUMA node 4:\n     64:4.0-1 "));
  EXPECT_TRUE(contains(map, "127:7.30-31\n"));
}

TEST(PlanReport, DescriptionListsEveryRank) {
  const PlacementRequest req{.reserve = ReservedCores::per_socket(1), .progress_thread = true};
  const PlacementPlan plan = make_placement_plan(machine("xeon-e5-2699v4"), req);
  const std::string text = describe_plan(plan);
  EXPECT_TRUE(contains(text, "layout rank-per-socket: 2 ranks per node (1 per socket), 21 threads per rank on 21 "
                             "cores each (OMP_PLACES=cores)\n"));
  EXPECT_TRUE(contains(text, "reserved cores: 21,43 (per-socket:1); idle: none\n"));
  EXPECT_TRUE(contains(text, "rank 1: socket 1, cores 22-42 (PUs 22-42), progress thread on core 43 (PUs 43)\n"));
}

}  // namespace
}  // namespace wave3d
