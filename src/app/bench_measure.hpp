#pragma once
// The measurements behind `wave3d bench`, as plain values: one BenchCase per configuration, each
// holding the stencil's throughput and the triad bandwidth taken in the same process just before.
#include <mpi.h>

#include <array>
#include <optional>
#include <vector>

#include "config/run_config.hpp"

namespace wave3d::app {

struct BenchSettings {
  RunConfig stencil;             // grid, radius, precision, blocking of the stencil runs
  int steps_per_repetition = 10;
  int repetitions = 5;           // timed; one more runs first as warm-up
  std::size_t stream_elements = 0;
  int stream_repetitions = 10;
  int fma_units = 2;             // FMA pipes per core assumed for the compute bound
  // Bind threads for each case (one rank: its threads on the first cores; several: one core each),
  // so the comparison does not depend on where the OS scheduler happens to put them.
  bool bind = true;
};

struct Spread {
  double min = 0, median = 0, max = 0;
};

struct BenchCase {
  int ranks = 1;
  int threads_per_rank = 1;
  Spread stencil_mpoints;           // over repetitions
  double gflops = 0;                // at the median
  Spread triad_gbytes;              // STREAM triad over its repetitions
  double bandwidth_bound_mpoints = 0;        // median triad GB/s / bytes per point
  std::optional<double> compute_bound_mpoints;  // unknown when clock or vector width is unknown
  std::size_t field_bytes = 0;
  std::optional<double> rss_growth_over_fields;  // (peak RSS - RSS before the fields) / field bytes
  bool verified_finite = true;
  // Halo exchange cost (pack + wait + unpack over the step, median rank); nullopt on one rank.
  std::optional<double> halo_exposed_fraction;
  std::array<int, 3> process_grid{1, 1, 1};

  double fraction_of_bandwidth_bound() const { return stencil_mpoints.median / bandwidth_bound_mpoints; }
};

// Runs the triad and the stencil with `threads` OpenMP threads on the ranks of comm (all of comm
// takes part; the stencil grid is decomposed over them). Collective over comm.
BenchCase measure_case(const BenchSettings& settings, int threads, MPI_Comm comm);

// Peak single-precision-equivalent flops of `cores` cores from the clock and the compiled vector
// width, or nullopt when either is unknown.
std::optional<double> peak_gflops(int cores, int bytes_per_value, int fma_units);

}  // namespace wave3d::app
