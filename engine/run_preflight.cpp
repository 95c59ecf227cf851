#include "engine/run_preflight.hpp"

#include <stdexcept>

#include "engine/placement_setup.hpp"
#include "engine/restart_source.hpp"
#include "field/memory_placement.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "mpi/progress_thread.hpp"
#include "output/result_files.hpp"
#include "runtime/memory_usage.hpp"
#include "topology/topology.hpp"

namespace wave3d::engine {
namespace {

std::size_t value_bytes(const RunConfig& config) { return config.precision == Precision::single ? 4 : 8; }

// Where the threads and the memory go on this node: the layout's plan for this many ranks, the memory
// node, the progress thread's core when no layout chooses it.
void check_placement_on_this_node(const RunConfig& config, MPI_Comm comm, const JobShape& job) {
  mpi::collectively(comm, [&] {
    if (config.placement.layout != PlacementLayout::none) (void)plan_node_placement(config, job.ranks_per_node());
    // With high_bandwidth_memory the run picks the node itself.
    if (!config.placement.high_bandwidth_memory) check_placement(config.memory, HwlocTopology().get());
    const bool plan_chooses_core = config.placement.layout != PlacementLayout::none;
    if (config.parallel.progress == ProgressEngine::thread && !plan_chooses_core)
      mpi::check_progress_core(config.parallel.progress_core);
  });
}

void check_directories(const RunConfig& config, MPI_Comm comm) {
  mpi::collectively(comm, [&] {
    if (mpi::rank_in(comm) != 0) return;
    check_run_directory_can_be_created(config.output.directory, config.output.name);
    if (config.checkpoint.every > 0 && !config.checkpoint.directory.empty())
      check_directory_can_be_created(config.checkpoint.directory, "checkpoint.directory");
  });
}

}  // namespace

JobShape launched_shape(MPI_Comm comm) {
  JobShape shape;
  shape.ranks = mpi::size_of(comm);
  const bool leads_a_node = mpi::rank_on_node(comm).rank == 0;
  shape.nodes = static_cast<int>(mpi::allreduce_sum(comm, leads_a_node ? 1.0 : 0.0));
  return shape;
}

mpi::Decomposition decompose_for_job(const RunConfig& config, int ranks, int ranks_per_node) {
  const mpi::Decomposition d =
      mpi::decompose(config.grid.n, ranks, mpi::requested_dims(config.parallel.process_grid), config.grid.radius);
  if (const auto available = available_memory_bytes())
    mpi::check_fits_in_memory(d, config.grid.radius, value_bytes(config), ranks_per_node, *available,
                              fields_in_memory(config));
  return d;
}

int fields_in_memory(const RunConfig& config) { return config.kernel == KernelChoice::folded ? 6 : 3; }

bool folded_levels_fit(const RunConfig& config, const mpi::Decomposition& d, int ranks_per_node) {
  const auto available = available_memory_bytes();
  return !available || mpi::field_bytes_per_node(d, config.grid.radius, value_bytes(config), ranks_per_node, 6) <= *available;
}

void require_thread_level_for(const RunConfig& config, MPI_Comm comm) {
  if (config.parallel.progress != ProgressEngine::thread) return;
  // Agreed: MPI lets each process be given its own thread level.
  mpi::collectively(comm, [] {
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE)
      throw std::runtime_error("parallel.progress = \"thread\" needs MPI_THREAD_MULTIPLE, but the MPI library "
                               "provides " + mpi::thread_level_name(provided) +
                               "; allowed with this library: parallel.progress = \"none\" or \"poll\"");
  });
}

Preflight check_run_can_start(const RunConfig& config, MPI_Comm comm, const JobShape& job) {
  Preflight found;
  check_thread_count(config, comm);
  require_thread_level_for(config, comm);
  check_placement_on_this_node(config, comm, job);
  found.decomposition =
      mpi::collectively(comm, [&] { return decompose_for_job(config, job.ranks, job.ranks_per_node()); });
  found.field_bytes_per_node = mpi::field_bytes_per_node(found.decomposition, config.grid.radius, value_bytes(config),
                                                         job.ranks_per_node(), fields_in_memory(config));
  found.available_bytes = available_memory_bytes();
  check_directories(config, comm);
  if (!config.restart.from.empty()) {
    const RestartSource source = open_restart_source(config, comm);
    found.restart_checkpoint = source.path.string();
    found.restart_step = source.reader->header().step;
  }
  return found;
}

}  // namespace wave3d::engine
