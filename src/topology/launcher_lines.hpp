#pragma once
// The launcher command lines that realise a PlacementPlan on every node of a job: Open MPI 4.1's mpirun
// and Slurm's srun, each with the OpenMP environment the plan's threads need. Printed, never run.
#include <string>
#include <string_view>
#include <vector>

#include "topology/placement_plan.hpp"

namespace wave3d {

// The program whose lines carry the plan's own settings (run_settings_words) after it: a launcher can
// start and confine the ranks, but only wave3d itself starts a progress thread and puts each thread on
// its core, so a line without them would not give the planned placement.
inline constexpr std::string_view kRunProgram = "wave3d run";

struct LauncherOptions {
  int nodes = 1;                                   // the same plan on each node; totals are nodes x ranks per node
  std::string program = std::string(kRunProgram);  // what the launcher starts
};

struct LauncherLines {
  std::string mpirun;                     // Open MPI 4.1
  std::string srun;                       // Slurm
  std::vector<std::string> program_argv;  // for kRunProgram, its words after "run"; empty for any other program
  std::vector<std::string> notes;         // what a line cannot express, and where an option takes effect
};

// The `wave3d run` arguments that make every rank compute this same plan for its node and bind to it:
// "--set", "placement.layout=...", "--set", "run.threads=N", and where they apply placement.reserve,
// placement.smt=true and, for a progress thread, parallel.halo=overlap and parallel.progress=thread.
// Each value reads back through --set as written (a reserve "list:1,2" stays one string) and holds no
// character a shell treats specially, so the printed line can be pasted as it is.
std::vector<std::string> run_settings_words(const PlacementPlan& plan);

// Open MPI's --map-by ppr:N:<socket|numa|node>:PE=M places a rank on M consecutive cores from the start
// of its domain; when the plan is not that shape (a progress core away from the rank's cores, cores
// left unused in front), the mpirun line starts the ranks unbound and says so in a note. srun expresses
// every plan: with --cpu-bind=cores (and --core-spec for reserved cores that follow Slurm's convention)
// when the ranks pack the node's cores in order, with explicit per-rank CPU masks otherwise.
LauncherLines make_launcher_lines(const PlacementPlan& plan, const LauncherOptions& options = {});

// The words of a launcher line. The lines are made of numbers, fixed option names, CPU masks and the
// settings words above, never blanks, so splitting them at blanks gives back exactly the words they were
// built from; built with an empty program, these are the launcher's words for a script to put its own
// program after.
std::vector<std::string> launcher_words(const std::string& line);

// Slurm's mask notation for a set of OS CPU numbers: "0x3" for {0, 1}.
std::string cpu_mask_hex(const std::vector<int>& cpus);

}  // namespace wave3d
