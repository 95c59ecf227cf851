// From curves to advice on the built-in study machines and small synthetic nodes: compute and surplus
// cores per NUMA domain, their roles, and the node's placement request.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "advise/advice.hpp"
#include "advise/advise_report.hpp"
#include "topology/launcher_lines.hpp"
#include "topology/machines.hpp"
#include "topology/placement_plan.hpp"

namespace wave3d::advise {
namespace {

Curve curve(std::string unit, const std::vector<double>& values) {
  Curve c{std::move(unit), {}};
  for (std::size_t i = 0; i < values.size(); ++i) c.points.push_back({static_cast<int>(i) + 1, values[i], {}, {}});
  return c;
}

// One socket of the T2K node (SEEDS.md section 4), synthetic: triad and a bandwidth-bound stencil.
DomainCurves t2k_socket() {
  return DomainCurves{std::nullopt, curve("GB/s", {3.3, 4.8, 4.95, 5.0}), curve("MPoints/s", {50, 96, 98, 97})};
}

std::string error_of(const Topology& topo, const std::vector<DomainCurves>& curves, double tolerance = 0.05) {
  try {
    (void)advise_node(topo, curves, tolerance);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

::testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" not in \"" << text << "\"";
}

TEST(Advice, T2kOpteronComputesOnTwoOfFourCoresPerSocket) {
  const Topology topo = load_builtin_machine(opteron_8356.name);
  const NodeAdvice a = advise_node(topo, {t2k_socket()}, 0.05);
  ASSERT_EQ(a.domains.size(), 4u);
  for (const DomainAdvice& d : a.domains) {
    SCOPED_TRACE(d.numa);
    EXPECT_EQ(d.basis, "stencil");
    EXPECT_EQ(d.triad->threads, 2);
    EXPECT_EQ(d.stencil->threads, 2);
    EXPECT_EQ(d.stencil->best_threads, 3);
    EXPECT_EQ(d.compute_cores, 2);
    EXPECT_EQ(d.surplus_cores(), 2);
    const int first = 4 * d.numa;
    EXPECT_EQ(d.compute, (std::vector<int>{first, first + 1}));
    EXPECT_EQ(d.progress_core, first + 2);
    EXPECT_EQ(d.daemon_cores, (std::vector<int>{first + 3}));
    EXPECT_NEAR(*d.compute_fraction_of_best, 96.0 / 98.0, 1e-12);
    EXPECT_FALSE(d.cost_of_one_core.has_value());
  }
  EXPECT_EQ(a.threads_per_rank, 2);
  EXPECT_EQ(a.compute_cores, 8);  // 8 of 16 cores, as in the study
  EXPECT_EQ(a.surplus_cores, 8);
  EXPECT_EQ(a.reserve, "per-socket:2");
  EXPECT_EQ(a.request.layout, Layout::rank_per_numa);
  EXPECT_TRUE(a.request.progress_thread);
  EXPECT_EQ(a.run_program,
            "wave3d run --set placement.layout=rank-per-numa --set placement.reserve=per-socket:2 "
            "--set parallel.halo=overlap --set parallel.progress=thread");
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_TRUE(contains(a.notes[0], "applied to all 4 NUMA nodes"));

  // The request is one the planner accepts: 4 ranks x 2 threads, progress thread on each socket's third core.
  const PlacementPlan plan = make_placement_plan(topo, a.request);
  ASSERT_EQ(plan.ranks.size(), 4u);
  for (const PlannedRank& r : plan.ranks) {
    EXPECT_EQ(r.cores, (std::vector<int>{4 * r.domain, 4 * r.domain + 1}));
    EXPECT_EQ(r.progress_core, 4 * r.domain + 2);
  }
  EXPECT_EQ(plan.idle_reserved_cores, (std::vector<int>{3, 7, 11, 15}));
}

TEST(Advice, DaemonsOnlyPlanUsesSlurmCoreSpec) {
  const Topology topo = load_builtin_machine(opteron_8356.name);
  PlacementRequest request = advise_node(topo, {t2k_socket()}, 0.05).request;
  request.progress_thread = false;
  const LauncherLines lines = make_launcher_lines(make_placement_plan(topo, request));
  EXPECT_TRUE(contains(lines.srun, "--core-spec=8"));
}

TEST(Advice, TriadAloneDecidesWhenThereIsNoStencilCurve) {
  const Topology topo = load_builtin_machine(opteron_8356.name);
  const NodeAdvice a = advise_node(topo, {DomainCurves{std::nullopt, curve("GB/s", {3.3, 4.8, 4.95, 5.0}), std::nullopt}}, 0.05);
  EXPECT_EQ(a.domains[0].basis, "triad");
  EXPECT_EQ(a.domains[0].compute_cores, 2);
  EXPECT_TRUE(contains(a.domains[0].notes.at(0), "no stencil curve"));
}

TEST(Advice, LinearCurveLeavesNoSurplusAndSaysWhatOneCoreCosts) {
  const Topology topo = load_builtin_machine(opteron_8356.name);
  const NodeAdvice a = advise_node(topo, {DomainCurves{std::nullopt, std::nullopt, curve("MPoints/s", {1, 2, 3, 4})}}, 0.05);
  for (const DomainAdvice& d : a.domains) {
    EXPECT_EQ(d.compute_cores, 4);
    EXPECT_EQ(d.surplus_cores(), 0);
    EXPECT_FALSE(d.progress_core.has_value());
    EXPECT_TRUE(d.daemon_cores.empty());
    EXPECT_NEAR(*d.cost_of_one_core, 0.25, 1e-12);
  }
  EXPECT_EQ(a.reserve, "none");
  EXPECT_FALSE(a.request.progress_thread);
  EXPECT_EQ(a.surplus_cores, 0);
  EXPECT_EQ(a.run_program, "wave3d run --set placement.layout=rank-per-numa");
  const std::string text = describe_domain_advice(a.domains[0], 0.05);
  EXPECT_TRUE(contains(text, "no surplus"));
  EXPECT_TRUE(contains(text, "costs 25.0 %"));
}

TEST(Advice, OneSurplusCoreGoesToTheProgressThread) {
  const Topology topo = Topology::from_synthetic("pack:2 numa:1 core:3 pu:1");
  const NodeAdvice a = advise_node(topo, {DomainCurves{std::nullopt, std::nullopt, curve("MPoints/s", {5, 9.8, 10})}}, 0.05);
  for (const DomainAdvice& d : a.domains) {
    EXPECT_EQ(d.compute_cores, 2);
    EXPECT_EQ(d.progress_core, d.cores[2]);
    EXPECT_TRUE(d.daemon_cores.empty());
  }
  EXPECT_EQ(a.reserve, "per-socket:1");
  EXPECT_TRUE(a.request.progress_thread);
  EXPECT_TRUE(contains(describe_domain_advice(a.domains[0], 0.05), "no core left for daemons"));
}

TEST(Advice, SingleCoreDomains) {
  const Topology topo = Topology::from_synthetic("pack:2 numa:1 core:1 pu:1");
  const NodeAdvice a = advise_node(topo, {DomainCurves{std::nullopt, std::nullopt, curve("MPoints/s", {5})}}, 0.05);
  EXPECT_EQ(a.domains[0].compute_cores, 1);
  EXPECT_FALSE(a.domains[0].cost_of_one_core.has_value());
  EXPECT_EQ(a.reserve, "none");
  EXPECT_TRUE(contains(describe_domain_advice(a.domains[0], 0.05), "single core"));
}

TEST(Advice, SeveralNumaNodesPerSocketReserveByList) {
  // EPYC NPS4: 8 NUMA nodes of 16 cores; a stencil flat from 6 threads.
  const Topology topo = load_builtin_machine(epyc_7763_nps4.name);
  const NodeAdvice a = advise_node(
      topo, {DomainCurves{std::nullopt, std::nullopt,
                          curve("MPoints/s", {10, 20, 30, 40, 50, 60, 60.5, 61, 61, 61, 61, 61, 61, 61, 61, 61})}},
      0.05);
  EXPECT_EQ(a.threads_per_rank, 6);
  EXPECT_EQ(a.compute_cores, 48);
  EXPECT_EQ(a.surplus_cores, 80);
  EXPECT_TRUE(a.reserve.starts_with("list:6,7,8,")) << a.reserve;
  const PlacementPlan plan = make_placement_plan(topo, a.request);
  EXPECT_EQ(plan.ranks.size(), 8u);
  EXPECT_EQ(plan.ranks[1].cores.front(), 16);
  EXPECT_EQ(plan.ranks[1].progress_core, 22);
}

TEST(Advice, CurvesPerDomainThatSaturateDifferently) {
  const Topology topo = Topology::from_synthetic("pack:2 numa:1 core:4 pu:1");
  const NodeAdvice a = advise_node(topo,
                                   {DomainCurves{0, std::nullopt, curve("MPoints/s", {5, 9.8, 10, 10})},
                                    DomainCurves{1, std::nullopt, curve("MPoints/s", {3, 6, 8.9, 9})}},
                                   0.05);
  EXPECT_EQ(a.domains[0].compute_cores, 2);
  EXPECT_EQ(a.domains[1].compute_cores, 3);
  EXPECT_EQ(a.threads_per_rank, 3);  // no domain below its saturation point
  EXPECT_EQ(a.reserve, "per-socket:1");
  EXPECT_TRUE(contains(a.notes.at(0), "different thread counts"));
}

TEST(Advice, CurveShortOfTheDomain) {
  const Topology topo = Topology::from_synthetic("pack:1 numa:1 core:4 pu:1");
  // Still rising at its last point: nothing shows the untested cores would not help.
  const NodeAdvice rising = advise_node(topo, {DomainCurves{std::nullopt, std::nullopt, curve("MPoints/s", {5, 10})}}, 0.05);
  EXPECT_EQ(rising.domains[0].compute_cores, 4);
  EXPECT_FALSE(rising.domains[0].compute_fraction_of_best.has_value());
  EXPECT_TRUE(contains(rising.domains[0].notes.at(0), "still rises"));
  EXPECT_FALSE(rising.domains[0].cost_of_one_core.has_value());
  // Flat before its end: the untested cores are taken to add nothing.
  const NodeAdvice flat = advise_node(topo, {DomainCurves{std::nullopt, std::nullopt, curve("MPoints/s", {5, 10, 10})}}, 0.05);
  EXPECT_EQ(flat.domains[0].compute_cores, 2);
  EXPECT_TRUE(contains(flat.domains[0].notes.at(0), "stops at 3 threads"));
}

TEST(Advice, CurveThatFallsAfterItsBestIsPointedOut) {
  const Topology topo = Topology::from_synthetic("pack:1 numa:1 core:5 pu:1");
  const NodeAdvice a =
      advise_node(topo, {DomainCurves{std::nullopt, std::nullopt, curve("MPoints/s", {5, 9, 10, 8, 7})}}, 0.05);
  EXPECT_EQ(a.domains[0].compute_cores, 3);
  ASSERT_EQ(a.domains[0].notes.size(), 1u);
  EXPECT_TRUE(contains(a.domains[0].notes[0], "stencil curve falls to 70 % of its best at 5 threads"));
}

TEST(Advice, CurvesThatDoNotFitTheMachineAreRefused) {
  const Topology opteron = load_builtin_machine(opteron_8356.name);
  const DomainCurves five{std::nullopt, std::nullopt, curve("MPoints/s", {1, 2, 3, 4, 5})};
  EXPECT_TRUE(contains(error_of(opteron, {five}), "stencil curve of NUMA node 0 goes to 5 threads"));
  EXPECT_TRUE(contains(error_of(opteron, {five}), "at most 4 threads"));
  EXPECT_TRUE(contains(error_of(opteron, {t2k_socket(), t2k_socket()}), "curves for 2 NUMA domains"));
  EXPECT_TRUE(contains(error_of(opteron, {DomainCurves{}}), "neither a triad nor a stencil curve"));
  EXPECT_TRUE(contains(error_of(opteron, {t2k_socket()}, 1.5), "tolerance = 1.5"));
  std::vector<DomainCurves> misordered(4, t2k_socket());
  misordered[1].numa = 3;
  EXPECT_TRUE(contains(error_of(opteron, misordered), "position 1 are for NUMA node 3"));
}

TEST(Advice, ReserveSpelling) {
  const Topology opteron = load_builtin_machine(opteron_8356.name);
  EXPECT_EQ(reserve_spelling(opteron, {}), "none");
  EXPECT_EQ(reserve_spelling(opteron, {3, 7, 11, 15}), "per-socket:1");
  EXPECT_EQ(reserve_spelling(opteron, {3, 7, 11}), "list:3,7,11");
  EXPECT_EQ(reserve_spelling(opteron, {2, 7, 11, 15}), "list:2,7,11,15");
  // Several NUMA nodes per socket: per-socket would not say which NUMA node keeps what.
  const Topology epyc = load_builtin_machine(epyc_7763_nps4.name);
  EXPECT_TRUE(reserve_spelling(epyc, {15, 31}).starts_with("list:"));
}

TEST(Report, TableMarksTheSaturationPoints) {
  const Topology topo = load_builtin_machine(opteron_8356.name);
  const NodeAdvice a = advise_node(topo, {t2k_socket()}, 0.05);
  const std::string table = render_curve_table(a.domains[0], 0.05);
  EXPECT_TRUE(contains(table, "threads"));
  EXPECT_TRUE(contains(table, "MPoints/s"));
  EXPECT_TRUE(contains(table, "4.8   0.960 <"));
  EXPECT_TRUE(contains(table, "96   0.980 <"));
  EXPECT_TRUE(contains(table, "within 5.0 %"));
  const std::string text = describe_domain_advice(a.domains[0], 0.05);
  EXPECT_TRUE(contains(text, "bandwidth-bound"));
  EXPECT_TRUE(contains(text, "progress thread on core 2, daemons on core 3"));
  const std::string node = describe_node_advice(a);
  EXPECT_TRUE(contains(node, "4 ranks (one per NUMA node) x 2 threads: 8 cores of 16 compute, 8 surplus"));
  EXPECT_TRUE(contains(node, "reserve per-socket:2"));
}

TEST(Report, ACurveStillRisingAtTheLastCoreIsNotCalledBandwidthBound) {
  // Both curves peak at the last core (a small core-bound node): nothing has saturated.
  DomainCurves curves;
  curves.triad = curve("GB/s", {18.4, 24.6});
  curves.stencil = curve("MPoints/s", {271.0, 536.0});
  const Topology topo = load_builtin_machine(opteron_8356.name);
  const NodeAdvice a = advise_node(topo, {curves}, 0.05);
  const std::string text = describe_domain_advice(a.domains[0], 0.05);
  EXPECT_FALSE(contains(text, "bandwidth-bound")) << text;
  EXPECT_TRUE(contains(text, "has not saturated")) << text;
}

}  // namespace
}  // namespace wave3d::advise
