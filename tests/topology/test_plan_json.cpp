// `wave3d plan --json`: what the study runner reads to size its sweeps.
#include <gtest/gtest.h>

#include "topology/plan_json.hpp"
#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::machine;

TEST(PlanJson, GivesTheMachineAndTheComputeCoresOfThePlan) {
  const Topology& topo = machine("xeon-e5-2699v4");  // 2 sockets x 22 cores
  const PlacementPlan plan =
      make_placement_plan(topo, {.layout = Layout::rank_per_socket, .threads_per_rank = 16,
                                 .reserve = ReservedCores::per_node(3), .progress_thread = true});
  const nlohmann::json doc = plan_to_json(topo, plan, make_launcher_lines(plan));
  EXPECT_EQ(doc["machine"]["sockets"], 2);
  EXPECT_EQ(doc["machine"]["cores"], 44);
  EXPECT_EQ(doc["machine"]["cores_per_socket"], 22);
  EXPECT_EQ(doc["plan"]["layout"], "rank-per-socket");
  EXPECT_EQ(doc["plan"]["ranks_per_node"], 2);
  EXPECT_EQ(doc["plan"]["threads_per_rank"], 16);
  EXPECT_EQ(doc["plan"]["compute_cores_per_node"], 32);
  EXPECT_EQ(doc["plan"]["reserved_cores"], nlohmann::json({21, 42, 43}));
  EXPECT_EQ(doc["plan"]["idle_reserved_cores"], nlohmann::json({43}));
  EXPECT_EQ(doc["plan"]["ranks"][0]["progress_core"], 21);
  EXPECT_EQ(doc["plan"]["ranks"][1]["cores"].size(), 16u);
  EXPECT_TRUE(doc["launchers"]["srun"].get<std::string>().starts_with("srun "));
  EXPECT_TRUE(doc["launchers"]["mpirun"].get<std::string>().starts_with("mpirun "));
  // What a script appends after `wave3d run` to get this plan: the same words the printed lines end with.
  const nlohmann::json program = {"--set", "placement.layout=rank-per-socket", "--set", "run.threads=16",
                                  "--set", "placement.reserve=per-node:3",     "--set", "parallel.halo=overlap",
                                  "--set", "parallel.progress=thread"};
  EXPECT_EQ(doc["launchers"]["program_argv"], program);
  EXPECT_TRUE(doc["launchers"]["mpirun"].get<std::string>().ends_with(
      "wave3d run --set placement.layout=rank-per-socket --set run.threads=16 --set placement.reserve=per-node:3 "
      "--set parallel.halo=overlap --set parallel.progress=thread"));
}

TEST(PlanJson, AProgresslessPlanHasNullProgressCores) {
  const Topology& topo = machine("opteron-8356");  // 4 sockets x 4 cores
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_core});
  const nlohmann::json doc = plan_to_json(topo, plan, make_launcher_lines(plan));
  EXPECT_EQ(doc["machine"]["cores_per_socket"], 4);
  EXPECT_EQ(doc["plan"]["ranks_per_node"], 16);
  EXPECT_EQ(doc["plan"]["compute_cores_per_node"], 16);
  EXPECT_TRUE(doc["plan"]["ranks"][3]["progress_core"].is_null());
  EXPECT_EQ(doc["launchers"]["program_argv"],
            nlohmann::json({"--set", "placement.layout=rank-per-core", "--set", "run.threads=1"}));
}

}  // namespace
}  // namespace wave3d
