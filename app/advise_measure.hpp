#pragma once
// The measurements behind `wave3d advise`: for each NUMA domain of this machine, STREAM triad and the
// bench's stencil with 1, 2, ... threads pinned one per core of the domain and all memory bound to the
// domain, so each domain's curves show how its own memory saturates. Reuses the bench's measurement.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "advise/advice.hpp"
#include "app/bench_measure.hpp"
#include "topology/topology.hpp"

namespace wave3d::app {

struct AdviseMeasureOptions {
  std::int64_t grid = 0;  // stencil cube edge; 0: fields at least 8x the domain's last-level cache
  int steps = 5;          // time steps per repetition
  int repetitions = 3;    // timed, after one warm-up
  std::size_t stream_elements = 0;  // per triad array; 0: 4x the domain's last-level cache, at least 64 MiB
  int stream_repetitions = 5;       // the first is a warm-up
  std::optional<int> numa;          // measure only this NUMA node (logical index); default all with cores
  std::vector<int> threads;         // thread counts; empty: 1 to the domain's cores
  std::vector<int> launch_cpus;     // the process's affinity as launched, for the binding audit
};

// One domain's sweep: what it will measure, then (after measure_domain) its curves.
struct DomainSweep {
  int numa = 0;       // logical index
  int os_index = -1;
  std::vector<int> cores;                   // logical indices, ascending
  std::vector<std::vector<int>> core_pus;   // the PUs (OS indices) of each core, as bound
  std::optional<std::uint64_t> llc_bytes;   // the last-level cache over the domain's cores, if known
  std::string llc_source;                   // "L3 of NUMA node 0", "all last-level caches", "unknown (32 MiB assumed)"
  std::int64_t grid = 0;
  std::size_t stream_elements = 0;
  std::vector<int> threads;                 // ascending
  advise::DomainCurves curves;              // filled by measure_domain
  std::vector<std::string> notices;         // memory could not be bound, ...
};

// What will be measured, without measuring. Throws std::invalid_argument for a NUMA node that does not
// exist or has no cores, or a thread count above a domain's cores.
std::vector<DomainSweep> prepare_sweeps(const Topology& topology, const AdviseMeasureOptions& options);

// Measures one domain on this process (MPI_COMM_SELF): for each thread count one bench case, median
// triad GB/s and stencil MPoints/s with the repetitions' spread. after_point sees each case as it ends.
void measure_domain(DomainSweep& sweep, const AdviseMeasureOptions& options,
                    const std::function<void(const DomainSweep&, const BenchCase&)>& after_point = {});

}  // namespace wave3d::app
