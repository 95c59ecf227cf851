// Placement plans for every layout on every built-in machine: the invariants that make a plan usable
// (every thread inside its rank's domain, no core used twice, reserved cores kept out of compute,
// progress threads on reserved cores of their own domain), and the exact cores of the cases the
// studies use.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <fmt/format.h>

#include "topology/reserved_cores.hpp"
#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::contains;
using testing::machine;
using testing::placement_error;

std::vector<int> range(int first, int last) {
  std::vector<int> v;
  for (int i = first; i <= last; ++i) v.push_back(i);
  return v;
}

int domain_of(const Topology& topo, DomainKind kind, int core) {
  const Core& c = topo.cores[static_cast<std::size_t>(core)];
  switch (kind) {
    case DomainKind::node: return 0;
    case DomainKind::socket: return c.package;
    case DomainKind::numa: return c.numa;
  }
  return -1;
}

void expect_usable(const Topology& topo, const PlacementPlan& plan) {
  const PlacementRequest& req = plan.request;
  ASSERT_EQ(static_cast<int>(plan.ranks.size()), plan.ranks_per_node);
  std::set<int> used_cores;
  std::set<int> used_pus;
  std::set<int> progress_cores;
  for (const PlannedRank& r : plan.ranks) {
    SCOPED_TRACE(fmt::format("rank {}", r.rank));
    EXPECT_EQ(r.rank, &r - plan.ranks.data());
    EXPECT_EQ(static_cast<int>(r.threads.size()), plan.threads_per_rank);
    EXPECT_EQ(static_cast<int>(r.cores.size()), plan.cores_per_rank);
    EXPECT_TRUE(std::is_sorted(r.cores.begin(), r.cores.end()));
    for (int c : r.cores) {
      EXPECT_TRUE(used_cores.insert(c).second) << "core " << c << " used twice";
      EXPECT_EQ(domain_of(topo, plan.domain_kind, c), r.domain) << "core " << c << " outside the rank's domain";
      EXPECT_FALSE(std::binary_search(plan.reserved_cores.begin(), plan.reserved_cores.end(), c))
          << "reserved core " << c << " computes";
    }
    for (const PlannedThread& t : r.threads) {
      EXPECT_TRUE(std::binary_search(r.cores.begin(), r.cores.end(), t.core));
      const std::vector<int>& core_pus = topo.cores[static_cast<std::size_t>(t.core)].pus;
      if (req.use_smt) {
        ASSERT_EQ(t.pus.size(), 1u);
        EXPECT_NE(std::find(core_pus.begin(), core_pus.end(), t.pus[0]), core_pus.end());
        EXPECT_TRUE(used_pus.insert(t.pus[0]).second) << "PU " << t.pus[0] << " used twice";
      } else {
        EXPECT_EQ(t.pus, core_pus);
      }
    }
    ASSERT_EQ(r.progress_core.has_value(), req.progress_thread);
    if (r.progress_core) {
      const int p = *r.progress_core;
      EXPECT_TRUE(std::binary_search(plan.reserved_cores.begin(), plan.reserved_cores.end(), p));
      EXPECT_EQ(domain_of(topo, plan.domain_kind, p), r.domain);
      EXPECT_EQ(topo.cores[static_cast<std::size_t>(p)].package,
                topo.cores[static_cast<std::size_t>(r.cores.front())].package);
      EXPECT_EQ(r.progress_pus, topo.cores[static_cast<std::size_t>(p)].pus);
      EXPECT_TRUE(progress_cores.insert(p).second) << "progress core " << p << " shared";
      EXPECT_FALSE(used_cores.count(p));
    }
  }
  std::vector<int> accounted(plan.idle_reserved_cores);
  accounted.insert(accounted.end(), progress_cores.begin(), progress_cores.end());
  std::sort(accounted.begin(), accounted.end());
  EXPECT_EQ(accounted, plan.reserved_cores);
}

// The N highest-numbered cores of each socket: DESIGN.md's (and Slurm's) default reservation.
std::vector<int> highest_per_socket(const Topology& topo, int n) {
  std::vector<int> v;
  for (const Package& p : topo.packages) v.insert(v.end(), p.cores.end() - n, p.cores.end());
  std::sort(v.begin(), v.end());
  return v;
}

struct Case {
  std::string_view machine;
  Layout layout;
};

class EveryLayoutOnEveryMachine : public ::testing::TestWithParam<Case> {};

TEST_P(EveryLayoutOnEveryMachine, DefaultPlanUsesEveryCore) {
  const Topology& topo = machine(GetParam().machine);
  const PlacementPlan plan = make_placement_plan(topo, {.layout = GetParam().layout});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.ranks_per_node * plan.cores_per_rank, static_cast<int>(topo.cores.size()));
  EXPECT_TRUE(plan.reserved_cores.empty());
}

TEST_P(EveryLayoutOnEveryMachine, ReservedCoresAreTheHighestOfEachSocket) {
  const Topology& topo = machine(GetParam().machine);
  const PlacementPlan plan =
      make_placement_plan(topo, {.layout = GetParam().layout, .reserve = ReservedCores::per_socket(1)});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.reserved_cores, highest_per_socket(topo, 1));
  EXPECT_EQ(plan.idle_reserved_cores, plan.reserved_cores);
  EXPECT_TRUE(plan.reserved_follow_core_spec);
}

TEST_P(EveryLayoutOnEveryMachine, ProgressThreadsSitOnReservedCoresOfTheirDomain) {
  const Topology& topo = machine(GetParam().machine);
  PlacementRequest req{.layout = GetParam().layout, .reserve = ReservedCores::per_socket(1), .progress_thread = true};
  if (req.layout == Layout::rank_per_numa) {
    // One reserved core in every NUMA node: the highest of each.
    std::vector<int> list;
    for (const NumaNode& n : topo.numa_nodes) list.push_back(n.cores.back());
    req.reserve = ReservedCores::list(list);
  }
  if (req.layout == Layout::rank_per_core) req.ranks_per_node = static_cast<int>(topo.packages.size());
  const PlacementPlan plan = make_placement_plan(topo, req);
  expect_usable(topo, plan);
  EXPECT_TRUE(plan.idle_reserved_cores.empty() || req.layout == Layout::rank_per_node);
}

TEST_P(EveryLayoutOnEveryMachine, SmtPlacesEveryHardwareThread) {
  const Topology& topo = machine(GetParam().machine);
  const PlacementPlan plan = make_placement_plan(topo, {.layout = GetParam().layout, .use_smt = true});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.ranks_per_node * plan.threads_per_rank, topo.pu_count());
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const BuiltinMachine& m : builtin_machines())
    for (Layout l : all_layouts) cases.push_back({m.name, l});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Plans, EveryLayoutOnEveryMachine, ::testing::ValuesIn(all_cases()), [](const auto& p) {
  std::string n = fmt::format("{}_{}", p.param.machine, to_string(p.param.layout));
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
});

TEST(PlacementPlan, Iso3dfdRankPerSocket) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_socket, .threads_per_rank = 22});
  EXPECT_EQ(plan.domain_kind, DomainKind::socket);
  EXPECT_EQ(plan.ranks_per_node, 2);
  EXPECT_EQ(plan.ranks_per_domain, 1);
  EXPECT_EQ(plan.cores_per_rank, 22);
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].domain, 0);
  EXPECT_EQ(plan.ranks[0].cores, range(0, 21));
  EXPECT_EQ(plan.ranks[1].domain, 1);
  EXPECT_EQ(plan.ranks[1].cores, range(22, 43));
  EXPECT_EQ(plan.ranks[1].threads[0].core, 22);
  EXPECT_EQ(plan.ranks[1].threads[0].pus, std::vector<int>{22});
}

TEST(PlacementPlan, ReservedCoreAndProgressThreadPerSocket) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan = make_placement_plan(
      topo, {.layout = Layout::rank_per_socket, .reserve = ReservedCores::per_socket(1), .progress_thread = true});
  EXPECT_EQ(plan.threads_per_rank, 21);
  EXPECT_EQ(plan.reserved_cores, (std::vector<int>{21, 43}));
  EXPECT_EQ(plan.ranks[0].cores, range(0, 20));
  EXPECT_EQ(plan.ranks[0].progress_core, 21);
  EXPECT_EQ(plan.ranks[1].progress_core, 43);
  EXPECT_TRUE(plan.idle_reserved_cores.empty());
}

TEST(PlacementPlan, PerNodeReservationFollowsSlurmCoreSpec) {
  const Topology& topo = machine("xeon-e5-2699v4");
  // Highest core of the highest socket first, then the highest of each lower socket, round and round.
  EXPECT_EQ(slurm_core_spec_cores(topo, 1), (std::vector<int>{43}));
  EXPECT_EQ(slurm_core_spec_cores(topo, 3), (std::vector<int>{21, 42, 43}));
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_socket,
                                                        .reserve = ReservedCores::per_node(3)});
  EXPECT_EQ(plan.reserved_cores, (std::vector<int>{21, 42, 43}));
  // Socket 1 keeps 20 compute cores; both ranks get as many.
  EXPECT_EQ(plan.threads_per_rank, 20);
  EXPECT_EQ(plan.ranks[0].cores, range(0, 19));
  EXPECT_EQ(plan.ranks[1].cores, range(22, 41));
  EXPECT_TRUE(plan.reserved_follow_core_spec);
}

// The whole machine as a Slurm job with CoreSpecCount under cgroups sees it: every core, but only some
// PUs allowed (the job's cpuset).
Topology whole_machine_allowing(const Topology& machine, const std::vector<int>& cores_outside) {
  Topology topo = machine;
  topo.allowed_pus.clear();
  for (const Core& core : topo.cores)
    if (std::find(cores_outside.begin(), cores_outside.end(), core.index) == cores_outside.end())
      topo.allowed_pus.insert(topo.allowed_pus.end(), core.pus.begin(), core.pus.end());
  std::sort(topo.allowed_pus.begin(), topo.allowed_pus.end());
  return topo;
}

TEST(PlacementPlan, ACpuSetWithoutSlurmsSpecialisedCoresMakesTheReservation) {
  const Topology whole = whole_machine_allowing(machine("xeon-e5-2699v4"), {21, 42, 43});
  EXPECT_EQ(cores_outside_cpu_set(whole), (std::vector<int>{21, 42, 43}));
  EXPECT_TRUE(cpu_set_makes_reservation(whole, ReservedCores::per_node(3)));
  // Any other reservation is not the one the cpuset made.
  EXPECT_FALSE(cpu_set_makes_reservation(whole, ReservedCores::per_node(1)));
  EXPECT_FALSE(cpu_set_makes_reservation(whole, ReservedCores::per_socket(1)));
  EXPECT_FALSE(cpu_set_makes_reservation(whole, ReservedCores::none()));
  EXPECT_TRUE(cpu_set_makes_reservation(whole, ReservedCores::list({43, 42, 21})));
  // Nothing outside the cpuset: nothing made.
  EXPECT_FALSE(cpu_set_makes_reservation(machine("xeon-e5-2699v4"), ReservedCores::per_node(3)));

  const PlacementPlan plan = make_placement_plan(whole, {.layout = Layout::rank_per_socket,
                                                         .reserve = ReservedCores::per_node(3)});
  expect_usable(whole, plan);
  EXPECT_EQ(plan.reserved_cores, (std::vector<int>{21, 42, 43}));
  EXPECT_TRUE(plan.reserved_by_cpu_set);
  EXPECT_TRUE(plan.reserved_follow_core_spec);
  EXPECT_EQ(plan.ranks[0].cores, range(0, 19));
  EXPECT_EQ(plan.ranks[1].cores, range(22, 41));
}

TEST(PlacementPlan, CoresOutsideTheCpuSetNeverCompute) {
  const Topology whole = whole_machine_allowing(machine("xeon-e5-2699v4"), {43});
  EXPECT_TRUE(contains(placement_error(whole, {.layout = Layout::rank_per_socket}),
                       "core 43 is outside this process's CPU set, but reserving no cores leaves it to compute; "
                       "reserve the cores outside the CPU set (43)"));
  EXPECT_TRUE(contains(placement_error(whole, {.layout = Layout::rank_per_socket, .reserve = ReservedCores::list({0})}),
                       "core 43 is outside this process's CPU set"));
  EXPECT_TRUE(contains(placement_error(whole, {.layout = Layout::rank_per_node, .reserve = ReservedCores::per_node(1),
                                               .progress_thread = true}),
                       "progress threads need reserved cores the ranks may run on, but cores 43 are outside"));
  // A larger reservation that covers the core outside is a plan, though not the cpuset's own one.
  const PlacementPlan plan =
      make_placement_plan(whole, {.layout = Layout::rank_per_socket, .reserve = ReservedCores::per_socket(1)});
  EXPECT_EQ(plan.reserved_cores, (std::vector<int>{21, 43}));
  EXPECT_FALSE(plan.reserved_by_cpu_set);
}

TEST(PlacementPlan, SeveralRanksPerSocketPackTheirCores) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_socket, .ranks_per_node = 4});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.ranks_per_domain, 2);
  EXPECT_EQ(plan.threads_per_rank, 11);
  EXPECT_EQ(plan.ranks[1].cores, range(11, 21));
  EXPECT_EQ(plan.ranks[2].cores, range(22, 32));
}

TEST(PlacementPlan, FewerThreadsThanCoresLeaveTheRestUnused) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_socket, .threads_per_rank = 16});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.cores_per_rank, 16);
  EXPECT_EQ(plan.ranks[1].cores, range(22, 37));
}

TEST(PlacementPlan, RanksWithFewerThreadsPackTightly) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan = make_placement_plan(
      topo, {.layout = Layout::rank_per_socket, .ranks_per_node = 4, .threads_per_rank = 8});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.ranks[1].cores, range(8, 15));
  EXPECT_EQ(plan.ranks[2].cores, range(22, 29));
}

TEST(PlacementPlan, SurplusCoreOnTheOpteron) {
  // T2K-Tsukuba: one core per socket left to the system, three flat-MPI ranks on the others.
  const Topology& topo = machine("opteron-8356");
  const PlacementPlan plan =
      make_placement_plan(topo, {.layout = Layout::rank_per_core, .reserve = ReservedCores::per_socket(1)});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.ranks_per_node, 12);
  EXPECT_EQ(plan.ranks_per_domain, 3);
  EXPECT_EQ(plan.threads_per_rank, 1);
  EXPECT_EQ(plan.reserved_cores, (std::vector<int>{3, 7, 11, 15}));
  EXPECT_EQ(plan.ranks[3].cores, std::vector<int>{4});
  EXPECT_EQ(plan.ranks[3].domain, 1);
}

TEST(PlacementPlan, EpycRankPerNumaWithSmt) {
  const Topology& topo = machine("epyc-7763-nps4");
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_numa, .use_smt = true});
  EXPECT_EQ(plan.domain_kind, DomainKind::numa);
  EXPECT_EQ(plan.ranks_per_node, 8);
  EXPECT_EQ(plan.threads_per_rank, 32);
  EXPECT_EQ(plan.cores_per_rank, 16);
  // A core's two hardware threads take consecutive thread numbers.
  EXPECT_EQ(plan.ranks[0].threads[0].pus, std::vector<int>{0});
  EXPECT_EQ(plan.ranks[0].threads[1].pus, std::vector<int>{128});
  EXPECT_EQ(plan.ranks[0].threads[2].pus, std::vector<int>{1});
  EXPECT_EQ(plan.ranks[5].domain, 5);
  EXPECT_EQ(plan.ranks[5].cores, range(80, 95));
}

TEST(PlacementPlan, SmtWithAnOddThreadCountUsesPartOfALastCore) {
  const Topology& topo = machine("epyc-7763-nps4");
  const PlacementPlan plan =
      make_placement_plan(topo, {.layout = Layout::rank_per_numa, .threads_per_rank = 5, .use_smt = true});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.cores_per_rank, 3);
  EXPECT_EQ(plan.ranks[0].threads[4].pus, std::vector<int>{2});
}

TEST(PlacementPlan, RankPerNodeSpansTheSockets) {
  const Topology& topo = machine("xeon-e5-4620");
  const PlacementPlan plan = make_placement_plan(topo, {.layout = Layout::rank_per_node});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.domain_kind, DomainKind::node);
  EXPECT_EQ(plan.threads_per_rank, 32);
}

TEST(PlacementPlan, ExplicitReservationCanDifferFromSlurms) {
  const Topology& topo = machine("xeon-e5-2699v4");
  const PlacementPlan plan =
      make_placement_plan(topo, {.layout = Layout::rank_per_socket, .reserve = ReservedCores::list({22, 0})});
  expect_usable(topo, plan);
  EXPECT_EQ(plan.reserved_cores, (std::vector<int>{0, 22}));
  EXPECT_EQ(plan.ranks[0].cores, range(1, 21));
  EXPECT_FALSE(plan.reserved_follow_core_spec);
}

TEST(PlacementPlan, IsAPureFunctionOfItsInputs) {
  const Topology& topo = machine("epyc-7763-nps4");
  const PlacementRequest req{.layout = Layout::rank_per_numa, .reserve = ReservedCores::per_node(8)};
  const PlacementPlan a = make_placement_plan(topo, req);
  const PlacementPlan b = make_placement_plan(topo, req);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < a.ranks.size(); ++i) EXPECT_EQ(a.ranks[i].cores, b.ranks[i].cores);
  EXPECT_EQ(a.reserved_cores, b.reserved_cores);
}

TEST(ReservedCoresText, ParsesAndPrintsEveryForm) {
  EXPECT_EQ(ReservedCores::parse("none"), ReservedCores::none());
  EXPECT_EQ(ReservedCores::parse("per-socket:1"), ReservedCores::per_socket(1));
  EXPECT_EQ(ReservedCores::parse("per-node:2"), ReservedCores::per_node(2));
  EXPECT_EQ(ReservedCores::parse("list:15,31"), ReservedCores::list({15, 31}));
  for (const char* text : {"none", "per-socket:1", "per-node:2", "list:15,31"})
    EXPECT_EQ(ReservedCores::parse(text).to_string(), text);
  for (const char* bad : {"per-socket", "per-socket:", "per-socket:x", "list:1,,2", "list:-1", "some:3", "3"})
    EXPECT_THROW((void)ReservedCores::parse(bad), std::invalid_argument) << bad;
}

TEST(LayoutText, RoundTrips) {
  for (Layout l : all_layouts) EXPECT_EQ(parse_layout(to_string(l)), l);
  EXPECT_FALSE(parse_layout("rank-per-rack"));
}

}  // namespace
}  // namespace wave3d
