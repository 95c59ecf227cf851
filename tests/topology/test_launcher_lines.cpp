// Launcher lines: the mpirun and srun options that realise a plan, including the ISO3DFD study's, and the
// wave3d run settings after the program that make the run bind to the same plan.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "config/config_override.hpp"
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
            "-x OMP_PROC_BIND=close wave3d run --set placement.layout=rank-per-socket --set run.threads=22");
  EXPECT_EQ(l.srun,
            "srun --nodes=1 --ntasks=2 --ntasks-per-node=2 --ntasks-per-socket=1 --cpus-per-task=22 "
            "--cpu-bind=cores --distribution=block:block --kill-on-bad-exit=1 "
            "--export=ALL,OMP_NUM_THREADS=22,OMP_PLACES=cores,OMP_PROC_BIND=close "
            "wave3d run --set placement.layout=rank-per-socket --set run.threads=22");
  EXPECT_EQ(l.program_argv,
            (std::vector<std::string>{"--set", "placement.layout=rank-per-socket", "--set", "run.threads=22"}));
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
  // Only wave3d starts the progress thread, and only with these settings.
  const std::string settings = "wave3d run --set placement.layout=rank-per-socket --set run.threads=21 "
                               "--set placement.reserve=per-socket:1 --set parallel.halo=overlap "
                               "--set parallel.progress=thread";
  EXPECT_TRUE(l.mpirun.ends_with(settings));
  EXPECT_TRUE(l.srun.ends_with(settings));
  ASSERT_FALSE(l.notes.empty());
  EXPECT_TRUE(
      contains(l.notes[0], "wave3d binds its 21 OpenMP threads to the cores before it and the progress thread to it"));
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
            "-x OMP_PROC_BIND=close wave3d run --set placement.layout=rank-per-numa --set run.threads=32 "
            "--set placement.smt=true");
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

TEST(LauncherLines, UnboundMpirunRanksAreBoundByWave3d) {
  const PlacementPlan plan = make_placement_plan(
      machine("xeon-e5-2699v4"), {.layout = Layout::rank_per_socket, .reserve = ReservedCores::list({0, 22})});
  const LauncherLines run = make_launcher_lines(plan);
  EXPECT_TRUE(contains(run.mpirun, "--bind-to none"));
  EXPECT_TRUE(contains(run.notes[0], "the ranks start unbound and wave3d binds each rank's threads"));
  // Any other program gets the launcher's words alone, and the note does not promise what it cannot know.
  const LauncherLines bare = make_launcher_lines(plan, {.program = ""});
  EXPECT_TRUE(bare.program_argv.empty());
  EXPECT_TRUE(bare.mpirun.ends_with("-x OMP_PROC_BIND=close "));
  EXPECT_TRUE(contains(bare.notes[0], "must bind their threads themselves"));
  EXPECT_TRUE(make_launcher_lines(plan, {.program = "./a.out"}).srun.ends_with(" ./a.out"));
}

// The words must mean to wave3d run what they meant to the plan: a list reserve stays one string through
// --set (a comma-separated value would otherwise be taken as a list).
TEST(LauncherLines, SettingsReadBackThroughSet) {
  const PlacementPlan plan = make_placement_plan(machine("xeon-e5-2699v4"),
                                                 {.layout = Layout::rank_per_socket,
                                                  .reserve = ReservedCores::list({21, 43}),
                                                  .progress_thread = true,
                                                  .use_smt = true});
  const std::vector<std::string> words = run_settings_words(plan);
  ASSERT_EQ(words.size() % 2, 0u);
  Settings settings;
  for (std::size_t i = 0; i < words.size(); i += 2) {
    EXPECT_EQ(words[i], "--set");
    EXPECT_EQ(words[i + 1].find_first_of(" \t'\"$`;&|<>(){}[]*?!~#"), std::string::npos) << words[i + 1];
    add_override(settings, words[i + 1]);
  }
  const auto text = [&](const char* key) { return std::get<std::string>(settings.at(key).value); };
  EXPECT_EQ(text("placement.layout"), "rank-per-socket");
  EXPECT_EQ(ReservedCores::parse(text("placement.reserve")), plan.request.reserve);
  EXPECT_EQ(std::get<std::int64_t>(settings.at("run.threads").value), plan.threads_per_rank);
  EXPECT_TRUE(std::get<bool>(settings.at("placement.smt").value));
  EXPECT_EQ(text("parallel.halo"), "overlap");
  EXPECT_EQ(text("parallel.progress"), "thread");
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
