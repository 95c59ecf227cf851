#pragma once
// Everything a run checks before it allocates a field or creates a file, in one place: `wave3d run`
// calls it first and `wave3d run --check` calls it and stops, so what --check accepts the run accepts.
// Checked: the thread count and MPI thread level, the placement plan on this node, the memory node and
// the progress core, the decomposition over the job's ranks and its memory per node, the output and
// checkpoint directories, and the restart checkpoint (opened and matched, not read).
// Not checkable before the run: the tuned blocks, and where the launcher really binds the threads
// (the binding audit at the first step).
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "config/run_config.hpp"
#include "mpi/decomposition.hpp"

namespace wave3d::engine {

// The job a configuration is checked for: this launch, or one described on the command line (a
// login node checking a batch job before submitting it).
struct JobShape {
  int ranks = 1;
  int nodes = 1;
  bool described = false;  // from --ranks / --nodes, checked against this node's topology and memory

  // The most ranks any node holds (ranks spread as evenly as the launcher spreads them).
  int ranks_per_node() const { return (ranks + nodes - 1) / nodes; }
};

// Collective: comm's rank count and the number of nodes its ranks share.
JobShape launched_shape(MPI_Comm comm);

// What the checks found, for --check to report.
struct Preflight {
  mpi::Decomposition decomposition;
  std::uint64_t field_bytes_per_node = 0;            // the largest rank's fields x ranks per node
  std::optional<std::uint64_t> available_bytes;      // this node's MemAvailable, if known
  std::optional<std::string> restart_checkpoint;     // the file restart.from resolves to
  std::optional<std::int64_t> restart_step;
};

// Collective over comm. Throws mpi::CollectiveError (bad input: one message, exit 2) at the first
// check that fails, on every rank.
Preflight check_run_can_start(const RunConfig& config, MPI_Comm comm, const JobShape& job);

// The process grid for `ranks` ranks (parallel.process_grid honoured), refused with
// mpi::DecompositionError when a subdomain would be thinner than the stencil or when ranks_per_node
// copies of the largest rank's fields exceed this node's available memory.
mpi::Decomposition decompose_for_job(const RunConfig& config, int ranks, int ranks_per_node);

// The fields a rank holds: prev, next and vel, and with stencil.kernel = "folded" their folded copies
// beside them (the folded levels hold the state, the plain ones what the exchange and the output read).
int fields_in_memory(const RunConfig& config);
// Whether the folded copies fit beside the plain fields on this node too, for ranks_per_node copies of
// the largest rank of `d` (true where the available memory is unknown): "auto" measures the folded
// kernel only where they do.
bool folded_levels_fit(const RunConfig& config, const mpi::Decomposition& d, int ranks_per_node);

// Collective over comm. Throws mpi::CollectiveError on every rank unless the MPI library provides,
// on every rank, the thread level the configuration needs (MPI_THREAD_MULTIPLE for
// parallel.progress = "thread").
void require_thread_level_for(const RunConfig& config, MPI_Comm comm);

}  // namespace wave3d::engine
