#include "app/advise_measure.hpp"

#include <mpi.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "probe/stream.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/machine_info.hpp"

namespace wave3d::app {
namespace {

constexpr std::uint64_t assumed_llc_bytes = 32u << 20;  // as the bench assumes when the cache is unknown

// The distinct L3 caches above the domain's cores, summed; nullopt when hwloc reports none.
std::optional<std::uint64_t> domain_l3_bytes(const Topology& topology, const NumaNode& numa) {
  std::set<int> l3s;
  for (int c : numa.cores) l3s.insert(topology.cores[static_cast<std::size_t>(c)].l3);
  std::uint64_t bytes = 0;
  for (int l3 : l3s) {
    if (l3 < 0) return std::nullopt;
    bytes += topology.l3_domains[static_cast<std::size_t>(l3)].bytes;
  }
  return bytes > 0 ? std::optional(bytes) : std::nullopt;
}

std::vector<int> thread_counts(const AdviseMeasureOptions& options, const NumaNode& numa) {
  const int cores = static_cast<int>(numa.cores.size());
  std::vector<int> counts;
  if (options.threads.empty()) {
    for (int t = 1; t <= cores; ++t) counts.push_back(t);
    return counts;
  }
  for (int t : options.threads)
    if (t > cores)
      throw std::invalid_argument(fmt::format("--threads {}: NUMA node {} has {} cores; allowed: 1 to {}", t,
                                              numa.index, cores, cores));
  std::set<int> sorted(options.threads.begin(), options.threads.end());
  return {sorted.begin(), sorted.end()};
}

}  // namespace

std::vector<DomainSweep> prepare_sweeps(const Topology& topology, const AdviseMeasureOptions& options) {
  std::vector<const NumaNode*> chosen;
  for (const NumaNode& n : topology.numa_nodes)
    if (!n.cores.empty() && (!options.numa || *options.numa == n.index)) chosen.push_back(&n);
  if (options.numa && chosen.empty()) {
    std::vector<int> with_cores;
    for (const NumaNode& n : topology.numa_nodes)
      if (!n.cores.empty()) with_cores.push_back(n.index);
    throw std::invalid_argument(fmt::format("--numa {}: no NUMA node {} with cores on this machine; allowed: {}",
                                            *options.numa, *options.numa, fmt::join(with_cores, ", ")));
  }
  if (chosen.empty()) throw std::invalid_argument(fmt::format("{} reports no NUMA node with cores", topology.source));

  const std::optional<std::uint64_t> machine_llc = total_last_level_cache_bytes(collect_machine_info());
  std::vector<DomainSweep> sweeps;
  for (const NumaNode* n : chosen) {
    DomainSweep s;
    s.numa = n->index;
    s.os_index = n->os_index;
    s.cores = n->cores;
    for (int c : n->cores) s.core_pus.push_back(topology.cores[static_cast<std::size_t>(c)].pus);
    if (const auto l3 = domain_l3_bytes(topology, *n)) {
      s.llc_bytes = l3;
      s.llc_source = fmt::format("the L3 of NUMA node {}", n->index);
    } else if (machine_llc) {
      s.llc_bytes = machine_llc;
      s.llc_source = "the machine's last-level caches";
    } else {
      s.llc_source = fmt::format("an assumed {} (the cache size is unknown)", format_bytes(assumed_llc_bytes));
    }
    const std::uint64_t llc = s.llc_bytes.value_or(assumed_llc_bytes);
    s.grid = options.grid > 0 ? options.grid : default_grid_edge(llc);
    s.stream_elements = options.stream_elements > 0 ? options.stream_elements : default_stream_elements(llc);
    s.threads = thread_counts(options, *n);
    sweeps.push_back(std::move(s));
  }
  return sweeps;
}

void measure_domain(DomainSweep& sweep, const AdviseMeasureOptions& options,
                    const std::function<void(const DomainSweep&, const BenchCase&)>& after_point) {
  BenchSettings settings;
  settings.stencil = bench_stencil_config(sweep.grid, bench_default_blocking);
  // Every page on the domain's own memory, as numactl --membind would put it.
  settings.stencil.memory = MemoryPlacement{MemoryPolicy::node, sweep.os_index};
  settings.steps_per_repetition = options.steps;
  settings.repetitions = options.repetitions;
  settings.stream_elements = sweep.stream_elements;
  settings.stream_repetitions = options.stream_repetitions;
  settings.thread_pus = sweep.core_pus;  // thread i on core i of the domain, lowest-numbered first
  settings.launch_cpus = options.launch_cpus;

  advise::Curve triad{"GB/s", {}};
  advise::Curve stencil{"MPoints/s", {}};
  for (int threads : sweep.threads) {
    const BenchCase c = measure_case(settings, threads, MPI_COMM_SELF);
    if (!c.verified_finite)
      throw std::runtime_error(fmt::format("the stencil produced non-finite values with {} threads on NUMA node {}",
                                           threads, sweep.numa));
    triad.points.push_back({threads, c.triad_gbytes.median, c.triad_gbytes.min, c.triad_gbytes.max});
    stencil.points.push_back({threads, c.stencil_mpoints.median, c.stencil_mpoints.min, c.stencil_mpoints.max});
    for (const std::string& notice : c.placement_notices)
      if (std::find(sweep.notices.begin(), sweep.notices.end(), notice) == sweep.notices.end())
        sweep.notices.push_back(notice);
    sweep.curves = advise::DomainCurves{sweep.numa, triad, stencil};
    if (after_point) after_point(sweep, c);
  }
}

}  // namespace wave3d::app
