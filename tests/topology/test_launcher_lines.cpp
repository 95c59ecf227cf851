// Launcher lines: the mpirun and srun options that realise a plan, including the ISO3DFD study's.
#include <gtest/gtest.h>

#include "topology/launcher_lines.hpp"
#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::contains;
using testing::machine;

LauncherLines lines_for(std::string_view name, const PlacementRequest& req, int nodes = 1) {
  return make_launcher_lines(make_placement_plan(machine(name), req), {.nodes = nodes, .program = "wave3d run"});
}

TEST(LauncherLines, Iso3dfdRankPerSocket) {
  const LauncherLines l = lines_for("xeon-e5-2699v4", {.layout = Layout::rank_per_socket, .threads_per_rank = 22});
  EXPECT_EQ(l.mpirun,
            "mpirun -n 2 --map-by ppr:1:socket:PE=22 --bind-to core -x OMP_NUM_THREADS=22 -x OMP_PLACES=cores "
            "-x OMP_PROC_BIND=close wave3d run");
  EXPECT_EQ(l.srun,
            "srun --nodes=1 --ntasks=2 --ntasks-per-node=2 --ntasks-per-socket=1 --cpus-per-task=22 "
            "--cpu-bind=cores --distribution=block:block "
            "--export=ALL,OMP_NUM_THREADS=22,OMP_PLACES=cores,OMP_PROC_BIND=close wave3d run");
  EXPECT_TRUE(l.notes.empty());
}

TEST(LauncherLines, Iso3dfdWithAReservedCorePerSocket) {
  const LauncherLines l =
      lines_for("xeon-e5-2699v4", {.layout = Layout::rank_per_socket, .reserve = ReservedCores::per_socket(1)}, 4);
  EXPECT_TRUE(contains(l.mpirun, "mpirun -n 8 --map-by ppr:1:socket:PE=21 --bind-to core"));
  EXPECT_TRUE(contains(l.mpirun, "-x OMP_NUM_THREADS=21"));
  EXPECT_TRUE(contains(l.srun, "--nodes=4 --ntasks=8 --ntasks-per-node=2"));
  EXPECT_TRUE(contains(l.srun, "--cpus-per-task=21 --core-spec=2 --cpu-bind=cores"));
  ASSERT_EQ(l.notes.size(), 1u);
  EXPECT_TRUE(contains(l.notes[0], "#SBATCH --core-spec=2"));
}

TEST(LauncherLines, ProgressCoresGoIntoMasksNotCoreSpec) {
  const LauncherLines l = lines_for("xeon-e5-2699v4", {.layout = Layout::rank_per_socket,
                                                       .reserve = ReservedCores::per_socket(1),
                                                       .progress_thread = true});
  // Cores 0-20 compute and 21 progresses: still one run of 22 cores from the socket's start.
  EXPECT_TRUE(contains(l.mpirun, "--map-by ppr:1:socket:PE=22 --bind-to core -x OMP_NUM_THREADS=21"));
  EXPECT_TRUE(contains(l.srun, "--cpus-per-task=22 --cpu-bind=mask_cpu:0x3fffff,0xfffffc00000 "));
  EXPECT_FALSE(contains(l.srun, "--core-spec"));
}

TEST(LauncherLines, ReservationOutsideSlurmsConventionUsesMasks) {
  const LauncherLines l =
      lines_for("xeon-e5-2699v4", {.layout = Layout::rank_per_socket, .reserve = ReservedCores::list({0, 22})});
  EXPECT_TRUE(contains(l.srun, "--cpu-bind=mask_cpu:0x3ffffe,0xfffff800000 "));
  EXPECT_FALSE(contains(l.srun, "--core-spec"));
  // Open MPI cannot start a rank's cores after a reserved first core: unbound, with a note saying so.
  EXPECT_TRUE(contains(l.mpirun, "--map-by ppr:1:socket --bind-to none"));
  EXPECT_EQ(l.notes.size(), 2u);
}

TEST(LauncherLines, UnusedCoresBetweenRanksNeedMasksForSlurm) {
  const LauncherLines l = lines_for("xeon-e5-2699v4", {.layout = Layout::rank_per_socket, .threads_per_rank = 16});
  EXPECT_TRUE(contains(l.mpirun, "--map-by ppr:1:socket:PE=16 --bind-to core"));
  EXPECT_TRUE(contains(l.srun, "--cpu-bind=mask_cpu:0xffff,0x3fffc00000 "));
}

TEST(LauncherLines, TwoRanksPerSocketWithCoresLeftOver) {
  const LauncherLines l = lines_for(
      "xeon-e5-2699v4", {.layout = Layout::rank_per_socket, .ranks_per_node = 4, .threads_per_rank = 8});
  EXPECT_TRUE(contains(l.mpirun, "mpirun -n 4 --map-by ppr:2:socket:PE=8 --bind-to core"));
  EXPECT_TRUE(contains(l.srun, "--ntasks-per-socket=2 --cpus-per-task=8 --cpu-bind=mask_cpu:0xff,0xff00,"
                               "0x3fc00000,0x3fc0000000 "));
}

TEST(LauncherLines, EpycNumaDomainsWithSmt) {
  const LauncherLines l = lines_for("epyc-7763-nps4", {.layout = Layout::rank_per_numa, .use_smt = true}, 2);
  EXPECT_EQ(l.mpirun,
            "mpirun -n 16 --map-by ppr:1:numa:PE=16 --bind-to core -x OMP_NUM_THREADS=32 -x OMP_PLACES=threads "
            "-x OMP_PROC_BIND=close wave3d run");
  EXPECT_TRUE(contains(l.srun, "--ntasks=16 --ntasks-per-node=8 --ntasks-per-socket=4 --cpus-per-task=32 "
                               "--cpu-bind=cores"));
  EXPECT_TRUE(contains(l.srun, "OMP_PLACES=threads"));
}

TEST(LauncherLines, RankPerCoreAndRankPerNode) {
  EXPECT_TRUE(contains(lines_for("opteron-8356", {.layout = Layout::rank_per_core}).mpirun,
                       "mpirun -n 16 --map-by ppr:4:socket:PE=1 --bind-to core -x OMP_NUM_THREADS=1"));
  const LauncherLines node = lines_for("xeon-e5-4620", {.layout = Layout::rank_per_node});
  EXPECT_TRUE(contains(node.mpirun, "mpirun -n 1 --map-by ppr:1:node:PE=32 --bind-to core"));
  EXPECT_FALSE(contains(node.srun, "--ntasks-per-socket"));
}

TEST(LauncherLines, CpuMasks) {
  EXPECT_EQ(cpu_mask_hex({}), "0x0");
  EXPECT_EQ(cpu_mask_hex({0, 1}), "0x3");
  EXPECT_EQ(cpu_mask_hex({4}), "0x10");
  EXPECT_EQ(cpu_mask_hex({0, 128}), "0x1" + std::string(31, '0') + "1");
}

TEST(LauncherLines, NeedAtLeastOneNode) {
  const PlacementPlan plan = make_placement_plan(machine("xeon-e5-2699v4"), {});
  EXPECT_THROW((void)make_launcher_lines(plan, {.nodes = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace wave3d
