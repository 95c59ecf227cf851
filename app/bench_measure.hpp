#pragma once
// The measurements behind `wave3d bench`, as plain values: one BenchCase per configuration, each
// holding the stencil's throughput and the triad bandwidth taken in the same process just before and
// just after it.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/run_config.hpp"
#include "probe/stream.hpp"
#include "solver/sweep_level_times.hpp"

namespace wave3d::app {

struct BenchSettings {
  RunConfig stencil;             // grid, radius, precision, blocking of the stencil runs
  int steps_per_repetition = 10;
  int repetitions = 5;           // timed; one more runs first as warm-up
  std::size_t stream_elements = 0;
  int stream_repetitions = 10;
  double fma_peak_seconds = 0.2;  // how long each thread runs the multiply-add chains of the peak
  // Bind threads for each case (one rank: its threads on the first cores; several: one core each),
  // so the comparison does not depend on where the OS scheduler happens to put them.
  bool bind = true;
  // When not empty, thread t of every case binds to the CPUs (OS indices) thread_pus[t] instead of the
  // placement `bind` chooses, e.g. to measure on the cores of one NUMA node; needs an entry per thread.
  std::vector<std::vector<int>> thread_pus;
  // The affinity the launcher gave the process, taken before any case binds a thread: what the binding
  // audit compares each case's threads with.
  std::vector<int> launch_cpus;
  bool strict_placement = false;  // a case whose placement the audit finds wrong ends the bench (exit 2)
  // The edge of the cube each case is measured on again with its fields in the caches (see
  // cache_resident_edge); nullopt: not measured.
  std::optional<std::int64_t> cache_grid_edge;
};

// The cache blocks (x, y, z; 0 = whole axis) the bench runs the stencil with unless told: the block
// size the tuner tries first for every kernel variant (the one that won most often where measured).
inline constexpr std::array<std::int64_t, 3> bench_default_blocking{0, 16, 16};

// The stencil the bench measures, on an edge^3 grid: R = 8 in single precision from a seed cube with
// zero boundaries (ISO3DFD's case), fields first-touched. Halo mode and progress are the caller's.
RunConfig bench_stencil_config(std::int64_t edge, const std::array<std::int64_t, 3>& blocking);

// The smallest multiple of 16 whose three single-precision fields are at least 8x `llc_bytes`.
std::int64_t default_grid_edge(std::uint64_t llc_bytes);

struct Spread {
  double min = 0, median = 0, max = 0;
};
// The least, the median and the largest of `values` (not empty).
Spread spread_of(std::vector<double> values);
// As the JSON documents write it: min, median and max.
inline nlohmann::json spread_json(const Spread& s) { return {{"min", s.min}, {"median", s.median}, {"max", s.max}}; }

// The largest cube edge, a multiple of 16 and at most `grid_edge`, whose three fields (halos of
// `radius` included, `value_bytes` per value) take at most half of `llc_bytes`; nullopt where the
// cache size is unknown or not even 16^3 fits. Measured there, the stencil runs with its data in the
// LLC instead of memory: about the rate of a sweep of several levels whose later levels come from the
// LLC (one that keeps them in nearer caches can be faster).
std::optional<std::int64_t> cache_resident_edge(std::optional<std::uint64_t> llc_bytes, int radius,
                                                std::size_t value_bytes, std::int64_t grid_edge);

// A case measured again on a grid whose fields fit in the caches: one step per sweep, the case's
// kernel and blocks, just after the case.
struct CacheResidentRate {
  std::int64_t edge = 0;
  std::size_t field_bytes = 0;  // rank 0's three fields with halos and padding, as allocated
  Spread mpoints;
};

struct BenchCase {
  int ranks = 1;
  int threads_per_rank = 1;
  Spread stencil_mpoints;           // over repetitions
  double gflops = 0;                // at the median
  Spread triad_gbytes;              // STREAM triad over its repetitions, just before the stencil
  double bandwidth_bound_mpoints = 0;        // median triad GB/s / bytes per point
  // The triad again just after the stencil, and the bound it gives: where the two triads disagree
  // (bandwidths_agree), the memory system changed its pace while the stencil ran.
  Spread triad_after_gbytes;
  double bandwidth_bound_after_mpoints = 0;
  // The multiply-add peak measured on the case's threads (all ranks) just before the stencil, and
  // the compute bound it gives (peak / flops per point); unknown in a build without vector FMA.
  std::optional<double> fma_peak_gflops;
  std::optional<double> compute_bound_mpoints;
  std::size_t field_bytes = 0;
  std::optional<double> rss_growth_over_fields;  // (peak RSS - RSS before the fields) / field bytes
  bool verified_finite = true;
  // Halo exchange cost (pack + wait + unpack over the step, median rank); nullopt on one rank.
  std::optional<double> halo_exposed_fraction;
  std::array<int, 3> process_grid{1, 1, 1};
  std::string kernel;       // the variant that ran
  Denormals denormals = Denormals::keep;  // how the kernel's threads treated subnormal values
  std::array<std::int64_t, 3> blocks{};  // the cache blocks it ran with (given, or the tuner's)
  std::optional<int> prefetch_rows;      // the z columns' prefetch distance; nullopt for the other kernels
  std::string tuning_summary;            // how they were found, with --blocking auto; empty when given
  std::string tuning_trial;              // the tuner's trial on real steps, or why none ran; empty if none applied
  nlohmann::json tuning;                 // the same for the JSON document
  int steps_per_sweep = 1;  // time steps per sweep it ran with
  int steps_requested = 1;  // the --sweep-steps entry it ran for (kTunedSweepSteps: auto)
  int round = 1;            // of bench --rounds, from 1
  int order_in_round = 0;   // how many cases its round measured before it
  std::string sweep_notice; // why fewer than asked, if so
  std::string short_sweeps_notice;  // which sweeps the end of a run cut short, if any
  TemporalHalo temporal_halo = TemporalHalo::deep;  // how sweeps met other ranks' faces (resolved)
  std::string temporal_halo_notice;                 // why "auto" resolved to deep halos, if it did
  int bytes_per_point = 0;  // what the bandwidth bound assumes the kernel moves per point
  // With T > 1: the kernel's time per level of the sweeps over all the case's threads
  // (engine/sweep_levels_report.hpp); empty otherwise.
  SweepLevelTimes sweep_levels;
  int sweep_threads = 0;
  // Against the case of 1 rank x 1 thread at the same T, where one ran: the stencil's median rate and,
  // beside it, the triad's (a stencil bound by memory speeds up no more than the memory does).
  std::optional<double> speedup;
  std::optional<double> triad_speedup;
  void compare_with_one_thread(const BenchCase& one_thread) {
    speedup = stencil_mpoints.median / one_thread.stencil_mpoints.median;
    triad_speedup = triad_gbytes.median / one_thread.triad_gbytes.median;
  }
  // Why pages could not be placed as the stencil's memory policy asks (e.g. memory binding not
  // permitted here), for the triad's arrays and the fields alike; empty when all went as asked.
  std::vector<std::string> placement_notices;
  // The binding audit of the case's stencil run (rank 0): "ok" or "wrong: <kinds>", the run.json form
  // and the warnings to print.
  std::string placement_verdict;
  nlohmann::json placement_audit;
  std::string placement_warnings;

  std::optional<CacheResidentRate> cache_resident;  // nullopt where BenchSettings says not to measure
  std::string cache_resident_notice;                 // why not, where it was asked for; empty if measured

  double fraction_of_bandwidth_bound() const { return stencil_mpoints.median / bandwidth_bound_mpoints; }
  double fraction_of_bandwidth_bound_after() const { return stencil_mpoints.median / bandwidth_bound_after_mpoints; }
  bool triads_agree() const { return bandwidths_agree(triad_gbytes.median, triad_after_gbytes.median); }
  // The in-cache rate (its median) and that rate against this case's bandwidth bound; nullopt where it
  // was not measured.
  std::optional<double> cache_resident_mpoints() const;
  std::optional<double> cache_resident_fraction_of_bound() const;
  // The later levels of the case's sweeps alone on all its threads (engine/sweep_levels_report.hpp),
  // what deeper sweeps approach, and that rate against the bandwidth bound; nullopt at one step per sweep.
  std::optional<double> later_levels_mpoints() const;
  std::optional<double> later_levels_fraction_of_bound() const;
};

// Runs the triad, the multiply-add peak (probe/fma_peak.hpp) and the stencil with `threads` OpenMP
// threads on the ranks of comm (all of comm takes part; the stencil grid is decomposed over them).
// The triad's arrays get the stencil's memory policy (settings.stencil.memory) when it binds pages
// (node, interleave). Collective over comm.
BenchCase measure_case(const BenchSettings& settings, int threads, MPI_Comm comm);

}  // namespace wave3d::app
