// Impossible plans: each PlacementError says why the request cannot be met and what would fit.
#include <gtest/gtest.h>

#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::machine;
using testing::placement_error;
using testing::contains;

TEST(PlacementErrors, RanksThatDoNotDivideOverTheSockets) {
  EXPECT_EQ(placement_error(machine("xeon-e5-2699v4"), {.layout = Layout::rank_per_socket, .ranks_per_node = 3}),
            "rank-per-socket with 3 ranks per node does not divide over 2 sockets; use 2 or 4 ranks per node");
  EXPECT_EQ(placement_error(machine("epyc-7763-nps4"), {.layout = Layout::rank_per_numa, .ranks_per_node = 4}),
            "rank-per-numa with 4 ranks per node does not divide over 8 NUMA nodes; use 8 ranks per node");
}

TEST(PlacementErrors, MoreRanksThanComputeCores) {
  EXPECT_EQ(placement_error(machine("opteron-8356"), {.layout = Layout::rank_per_socket, .ranks_per_node = 16,
                                                      .reserve = ReservedCores::per_socket(1)}),
            "rank-per-socket with 16 ranks per node puts 4 ranks on each socket but socket 0 has only 3 compute "
            "cores after reserving 1; use at most 12 ranks per node");
}

TEST(PlacementErrors, MoreThreadsThanTheDomainLeaves) {
  EXPECT_EQ(placement_error(machine("xeon-e5-4620"), {.layout = Layout::rank_per_numa, .threads_per_rank = 8,
                                                      .reserve = ReservedCores::per_socket(2)}),
            "8 threads per rank need 8 cores but rank-per-numa leaves 6 cores per NUMA node after reserving 2; "
            "use at most 6 threads or reserve fewer cores");
  EXPECT_EQ(placement_error(machine("xeon-e5-2699v4"),
                            {.layout = Layout::rank_per_socket, .ranks_per_node = 4, .threads_per_rank = 12}),
            "12 threads per rank need 12 cores but rank-per-socket with 2 ranks per socket leaves 11 cores per "
            "rank; use at most 11 threads or fewer ranks per node");
}

TEST(PlacementErrors, ThreadsBeyondOneCoreSuggestSmtWhereThereIsSome) {
  EXPECT_EQ(placement_error(machine("epyc-7763-nps4"), {.layout = Layout::rank_per_core, .threads_per_rank = 2}),
            "2 threads per rank need 2 cores but rank-per-core leaves 1 core per rank; use at most 1 thread or "
            "use SMT (2 hardware threads per core)");
  EXPECT_EQ(placement_error(machine("epyc-7763-nps4"),
                            {.layout = Layout::rank_per_numa, .threads_per_rank = 33, .use_smt = true}),
            "33 threads per rank need 17 cores with 2 hardware threads each but rank-per-numa leaves 16 cores per "
            "NUMA node; use at most 32 threads");
}

TEST(PlacementErrors, ReservationThatEmptiesASocket) {
  EXPECT_EQ(placement_error(machine("xeon-e5-2699v4"), {.reserve = ReservedCores::per_socket(22)}),
            "reserving 22 cores per socket leaves socket 0 without compute cores; reserve at most 21 per socket");
  EXPECT_EQ(placement_error(machine("opteron-8356"), {.reserve = ReservedCores::per_node(16)}),
            "reserving 16 cores per node leaves the node without compute cores; reserve at most 15 per node");
  // Slurm's order takes a core from each socket in turn, starting at the last: the 13th empties socket 3.
  EXPECT_EQ(placement_error(machine("opteron-8356"), {.reserve = ReservedCores::per_node(13)}),
            "reserving 13 cores per node leaves socket 3 without compute cores; reserve at most 12 per node");
}

TEST(PlacementErrors, ExplicitListThatEmptiesANumaNode) {
  EXPECT_EQ(placement_error(machine("opteron-8356"),
                            {.layout = Layout::rank_per_numa, .reserve = ReservedCores::list({4, 5, 6, 7})}),
            "reserving cores 4,5,6,7 leaves NUMA node 1 without compute cores; keep at least one core of NUMA node "
            "1 out of the reserved list");
}

TEST(PlacementErrors, ProgressThreadWithoutAReservedCore) {
  EXPECT_EQ(placement_error(machine("xeon-e5-2699v4"), {.layout = Layout::rank_per_socket, .progress_thread = true}),
            "progress thread needs a reserved core on every socket; reserve at least 1 per socket");
  const Topology& xeon = machine("xeon-e5-2699v4");
  EXPECT_EQ(placement_error(xeon, {.reserve = ReservedCores::per_node(1), .progress_thread = true}),
            "progress thread needs a reserved core on every socket but socket 0 has 0; reserve at least 1 per socket");
  EXPECT_EQ(placement_error(xeon, {.ranks_per_node = 4, .reserve = ReservedCores::per_socket(1),
                                   .progress_thread = true}),
            "progress threads need 2 reserved cores on every socket (one per rank); reserve at least 2 per socket");
}

TEST(PlacementErrors, ProgressThreadPerNumaNodeSuggestsAList) {
  // per-socket reservations land in the socket's last NUMA node; the others have none.
  const std::string msg = placement_error(
      machine("epyc-7763-nps4"),
      {.layout = Layout::rank_per_numa, .reserve = ReservedCores::per_socket(4), .progress_thread = true});
  EXPECT_TRUE(contains(msg, "progress thread needs a reserved core on every NUMA node but NUMA node 0 has 0"));
  EXPECT_TRUE(contains(msg, "reserve 1 in each NUMA node, e.g. list:15,31,47,63,79,95,111,127"));
}

TEST(PlacementErrors, ExplicitReservedCoreOutOfRange) {
  EXPECT_EQ(placement_error(machine("xeon-e5-2699v4"), {.reserve = ReservedCores::list({15, 44})}),
            "reserved core 44 is out of range: the node has cores 0-43");
  EXPECT_EQ(placement_error(machine("xeon-e5-2699v4"), {.reserve = ReservedCores::list({15, 15})}),
            "reserved core 15 is listed twice");
}

TEST(PlacementErrors, NegativeCounts) {
  EXPECT_TRUE(contains(placement_error(machine("xeon-e5-2699v4"), {.ranks_per_node = -1}), "-1 ranks per node"));
  EXPECT_TRUE(contains(placement_error(machine("xeon-e5-2699v4"), {.threads_per_rank = -2}), "-2 threads per rank"));
  EXPECT_TRUE(contains(placement_error(machine("xeon-e5-2699v4"), {.reserve = ReservedCores::per_node(-1)}),
                       "cannot reserve -1 cores per node"));
}

TEST(PlacementErrors, AreRuntimeErrors) {
  EXPECT_THROW((void)make_placement_plan(machine("xeon-e5-2699v4"), {.ranks_per_node = 3}), std::runtime_error);
}

}  // namespace
}  // namespace wave3d
