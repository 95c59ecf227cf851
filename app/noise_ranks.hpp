#pragma once
// The MPI side of `wave3d noise`: which CPUs each rank probes when ranks of a node share CPUs, and
// bringing every rank's results to rank 0.
#include <mpi.h>

#include <vector>

#include "probe/noise_result.hpp"

namespace wave3d::app {

// Collective. `wanted`: the CPUs this rank would probe. Ranks on the same node exchange their lists
// and split shared CPUs with share_cpus_among_ranks, so every CPU of a node is probed by one thread
// only (under mpiexec --bind-to none every rank may use every CPU). Returns this rank's share.
std::vector<int> share_cpus_on_node(MPI_Comm comm, const std::vector<int>& wanted);

// Collective. Every rank's results, in rank order, on `root`; empty elsewhere.
std::vector<RankNoise> gather_rank_noise(MPI_Comm comm, const RankNoise& mine, int root);

}  // namespace wave3d::app
