// The placement audit on synthetic placements of machines we do not have: the study machines of
// DESIGN.md (2 x 22-core Xeon, 4 x 4-core Opteron, a 2-socket EPYC with 2 hardware threads per core).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "topology/placement_audit.hpp"
#include "topology/placement_audit_json.hpp"
#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::contains;
using testing::machine;

std::vector<int> consecutive(int first, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

// A thread bound to `allowed`, seen running on its first CPU.
SeenThread thread_on(int number, std::vector<int> allowed) {
  SeenThread t;
  t.thread = number;
  t.cpu = allowed.front();
  t.allowed = std::move(allowed);
  return t;
}

SeenRank rank_with(int number, std::vector<int> launch, std::vector<SeenThread> threads,
                   std::string proc_bind = "close") {
  SeenRank r;
  r.rank = number;
  r.host = "node1";
  r.launch_cpus = std::move(launch);
  r.proc_bind = std::move(proc_bind);
  r.num_places = r.proc_bind == "false" ? 0 : static_cast<int>(threads.size());
  r.threads = std::move(threads);
  return r;
}

// What every rank of a node reports when wave3d bound it exactly as the plan says.
std::vector<SeenRank> ranks_as_planned(const PlacementPlan& plan) {
  std::vector<SeenRank> ranks;
  for (const PlannedRank& p : plan.ranks) {
    SeenRank r;
    r.rank = p.rank;
    r.host = "node1";
    r.proc_bind = "close";
    r.num_places = static_cast<int>(p.threads.size());
    r.planned = true;
    for (const PlannedThread& t : p.threads) {
      SeenThread seen = thread_on(static_cast<int>(r.threads.size()), t.pus);
      seen.planned = t.pus;
      r.launch_cpus.insert(r.launch_cpus.end(), t.pus.begin(), t.pus.end());
      r.threads.push_back(seen);
    }
    if (!p.progress_pus.empty()) {
      SeenThread progress = thread_on(static_cast<int>(r.threads.size()), p.progress_pus);
      progress.progress = true;
      progress.planned = p.progress_pus;
      r.threads.push_back(progress);
    }
    std::sort(r.launch_cpus.begin(), r.launch_cpus.end());
    ranks.push_back(r);
  }
  return ranks;
}

std::vector<std::string> kinds_of(const std::vector<PlacementProblem>& problems) {
  std::vector<std::string> kinds;
  for (const PlacementProblem& p : problems) kinds.push_back(p.kind + "/" + p.cause);
  return kinds;
}

const PlacementProblem* find_problem(const std::vector<PlacementProblem>& problems, const std::string& kind) {
  for (const PlacementProblem& p : problems)
    if (p.kind == kind) return &p;
  return nullptr;
}

TEST(PlacementAudit, EveryPlanOfEveryStudyMachineIsOk) {
  for (const BuiltinMachine& m : builtin_machines()) {
    const Topology& topo = machine(m.name);
    for (Layout layout : all_layouts) {
      for (const char* reserve : {"none", "per-socket:1"}) {
        for (bool progress : {false, true}) {
          PlacementRequest request;
          request.layout = layout;
          request.reserve = ReservedCores::parse(reserve);
          request.progress_thread = progress;
          if (!testing::placement_error(topo, request).empty()) continue;
          const PlacementPlan plan = make_placement_plan(topo, request);
          const auto problems = audit_node(node_cpus_of(topo), ranks_as_planned(plan));
          EXPECT_TRUE(problems.empty()) << m.name << " " << to_string(layout) << " reserve " << reserve
                                        << (progress ? " with progress threads: " : ": ")
                                        << (problems.empty() ? "" : problems.front().message);
        }
      }
    }
  }
}

// The quick-start trap on the ISO3DFD machine: mpiexec --bind-to none with OMP_PROC_BIND=close and
// OMP_PLACES=cores. Each rank's OpenMP runtime numbers the places from the node's first core, so both
// ranks put their 22 threads on socket 0 while socket 1 idles.
TEST(PlacementAudit, RanksPiledOnTheFirstPlacesBlameOpenMP) {
  const Topology& xeon = machine(xeon_e5_2699v4.name);
  std::vector<SeenRank> ranks;
  for (int r = 0; r < 2; ++r) {
    std::vector<SeenThread> threads;
    for (int t = 0; t < 22; ++t) threads.push_back(thread_on(t, {t}));
    ranks.push_back(rank_with(r, consecutive(0, 44), threads));
  }
  const auto problems = audit_node(node_cpus_of(xeon), ranks);
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"shared-cpus/openmp"});
  const PlacementProblem& p = problems.front();
  EXPECT_EQ(p.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.host, "node1");
  EXPECT_TRUE(contains(p.message, "rank 0 thread 0, rank 1 thread 0 share CPU 0"));
  EXPECT_TRUE(contains(p.message, "CPUs 22-43 of the node stay idle"));
  EXPECT_TRUE(contains(p.message, "--bind-to none"));
}

// Open MPI's default for 2 ranks binds each to one core: 22 threads take turns on it.
TEST(PlacementAudit, ThreadsConfinedByTheLauncherBlameTheLauncher) {
  const Topology& xeon = machine(xeon_e5_2699v4.name);
  std::vector<SeenRank> ranks;
  for (int r = 0; r < 2; ++r) {
    std::vector<SeenThread> threads;
    for (int t = 0; t < 22; ++t) threads.push_back(thread_on(t, {r * 22}));
    ranks.push_back(rank_with(r, {r * 22}, threads));
  }
  const auto problems = audit_node(node_cpus_of(xeon), ranks);
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"shared-cpus/launcher"});
  EXPECT_TRUE(contains(problems.front().message, "the launcher bound rank 0 to CPU 0 for its 22 threads"));
  EXPECT_TRUE(contains(problems.front().message, "share CPU 22"));
}

// The surplus-core machine: 16 ranks, one per core, and each rank's progress thread left on the
// rank's own core (parallel.progress_core on a compute CPU): every core takes turns, no core is idle.
TEST(PlacementAudit, ProgressThreadsOnComputeCoresOversubscribeTheNode) {
  const Topology& opteron = machine(opteron_8356.name);
  std::vector<SeenRank> ranks;
  for (int r = 0; r < 16; ++r) {
    SeenThread progress = thread_on(1, {r});
    progress.progress = true;
    ranks.push_back(rank_with(r, {r}, {thread_on(0, {r}), progress}));
  }
  const auto problems = audit_node(node_cpus_of(opteron), ranks);
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"oversubscribed/launcher"});
  EXPECT_TRUE(contains(problems.front().message, "32 threads (16 ranks"));
}

// With half of the cores idle, a progress thread on its rank's compute core is the cause to name.
TEST(PlacementAudit, ProgressThreadOnAComputeCoreWhileCoresIdle) {
  const Topology& opteron = machine(opteron_8356.name);
  SeenThread progress = thread_on(1, {0});
  progress.progress = true;
  const auto problems = audit_node(node_cpus_of(opteron), {rank_with(0, consecutive(0, 16), {thread_on(0, {0}), progress})});
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"shared-cpus/progress-core"});
  EXPECT_TRUE(contains(problems.front().message, "rank 0 thread 0, rank 0 progress thread share CPU 0"));
}

TEST(PlacementAudit, UnboundThreadsFloat) {
  const Topology& opteron = machine(opteron_8356.name);
  std::vector<SeenRank> ranks;
  for (int r = 0; r < 4; ++r)
    ranks.push_back(rank_with(r, consecutive(0, 16), {thread_on(0, consecutive(0, 16)), thread_on(1, consecutive(0, 16))}, "false"));
  const auto problems = audit_node(node_cpus_of(opteron), ranks);
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"floating/unbound"});
  EXPECT_EQ(problems.front().ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(contains(problems.front().message, "rank 0 threads 0-1 (may run on CPUs 0-15)"));
  EXPECT_TRUE(contains(problems.front().message, "OMP_PROC_BIND"));
}

TEST(PlacementAudit, PlacesSpanningSocketsFloatUnderOpenMP) {
  const Topology& opteron = machine(opteron_8356.name);
  // OMP_PLACES=sockets: each thread may use a whole socket.
  const auto problems =
      audit_node(node_cpus_of(opteron), {rank_with(0, consecutive(0, 16), {thread_on(0, consecutive(0, 4)), thread_on(1, consecutive(4, 4))})});
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"floating/openmp"});
  EXPECT_TRUE(contains(problems.front().message, "OMP_PLACES"));
}

TEST(PlacementAudit, AnUnboundProgressThreadFloats) {
  const Topology& opteron = machine(opteron_8356.name);
  SeenThread progress = thread_on(1, consecutive(0, 16));
  progress.progress = true;
  const auto problems = audit_node(node_cpus_of(opteron), {rank_with(0, consecutive(0, 16), {thread_on(0, {0}), progress})});
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"floating/unbound"});
  EXPECT_TRUE(contains(problems.front().message, "rank 0 progress thread (may run on CPUs 0-15)"));
}

// Hardware threads: two threads on the two PUs of a core is SMT at work, three take turns.
TEST(PlacementAudit, SmtSiblingsShareACoreWithoutTakingTurns) {
  const Topology& epyc = machine(epyc_7763_nps4.name);
  const std::vector<int> core0{0, 128};
  const NodeCpus node = node_cpus_of(epyc);
  EXPECT_TRUE(audit_node(node, {rank_with(0, core0, {thread_on(0, core0), thread_on(1, core0)})}).empty());
  EXPECT_TRUE(audit_node(node, {rank_with(0, core0, {thread_on(0, {0}), thread_on(1, {128})})}).empty());

  const auto three = audit_node(node, {rank_with(0, core0, {thread_on(0, core0), thread_on(1, core0), thread_on(2, core0)})});
  ASSERT_EQ(kinds_of(three), std::vector<std::string>{"shared-cpus/launcher"});
  EXPECT_TRUE(contains(three.front().message, "share CPUs 0,128"));

  // A thread allowed on two PUs of different cores floats; on one core's two PUs it does not.
  EXPECT_EQ(kinds_of(audit_node(node, {rank_with(0, {0, 1}, {thread_on(0, {0, 1})})})),
            std::vector<std::string>{"floating/openmp"});
}

// A job confined by its cgroup to 4 of the node's 16 CPUs, running 8 threads.
TEST(PlacementAudit, ACgroupSmallerThanTheJobIsNamed) {
  NodeCpus node = node_cpus_of(machine(opteron_8356.name));
  node.allowed = consecutive(0, 4);
  std::vector<SeenRank> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(rank_with(r, {r}, {thread_on(0, {r}), thread_on(1, {r})}));
  const auto problems = audit_node(node, ranks);
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"oversubscribed/cgroup"});
  EXPECT_TRUE(contains(problems.front().message, "cpuset / cgroup allows of the machine's 16"));
}

TEST(PlacementAudit, ThreadsAwayFromThePlanAreOffPlan) {
  const Topology& opteron = machine(opteron_8356.name);
  PlacementRequest request;
  request.layout = Layout::rank_per_socket;
  std::vector<SeenRank> ranks = ranks_as_planned(make_placement_plan(opteron, request));
  // Rank 1 did not bind: its threads float over the node instead of sitting on socket 1's cores.
  for (SeenThread& t : ranks[1].threads) {
    t.allowed = consecutive(0, 16);
    t.cpu = 2;
  }
  const auto problems = audit_node(node_cpus_of(opteron), ranks);
  const PlacementProblem* off = find_problem(problems, "off-plan");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->ranks, std::vector<int>{1});
  EXPECT_TRUE(contains(off->message, "rank 1 thread 0 was planned on CPU 4 but may run on CPUs 0-15 and ran on CPU 2"));
  EXPECT_NE(find_problem(problems, "floating"), nullptr);
}

TEST(PlacementAudit, BlockingThatLeavesThreadsIdleIsNamed) {
  const Topology& xeon = machine(xeon_e5_2699v4.name);
  PlacementRequest request;
  request.layout = Layout::rank_per_socket;
  std::vector<SeenRank> ranks = ranks_as_planned(make_placement_plan(xeon, request));
  for (SeenRank& r : ranks) r.work_blocks = 1;  // blocking.size = 0,0,0: one block per rank
  const auto problems = audit_node(node_cpus_of(xeon), ranks);
  ASSERT_EQ(kinds_of(problems), std::vector<std::string>{"no-work/blocking"});
  EXPECT_TRUE(contains(problems.front().message, "ranks 0-1 have only 1 cache block for 22 threads, so 21 threads"));
  for (SeenRank& r : ranks) r.work_blocks = 22;
  EXPECT_TRUE(audit_node(node_cpus_of(xeon), ranks).empty());
}

TEST(PlacementAudit, InputsSurviveJson) {
  const Topology& epyc = machine(epyc_7763_nps4.name);
  SeenRank rank = rank_with(3, {0, 128}, {thread_on(0, {0, 128})});
  rank.threads.front().planned = {0, 128};
  rank.planned = true;
  rank.work_blocks = 12;
  const nlohmann::json j = rank;
  const SeenRank back = j.get<SeenRank>();
  EXPECT_EQ(nlohmann::json(back), j);
  const NodeCpus node = node_cpus_of(epyc);
  EXPECT_EQ(nlohmann::json(nlohmann::json(node).get<NodeCpus>()), nlohmann::json(node));
  EXPECT_EQ(node.allowed.size(), 256u);
  EXPECT_EQ(node.core_of_pu[128], node.core_of_pu[0]);
}

}  // namespace
}  // namespace wave3d
