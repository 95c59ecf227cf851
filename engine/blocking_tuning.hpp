#pragma once
// blocking.size = "auto" and blocking.steps = "auto" for a run: the blocking read from the tuning
// cache on rank 0, or measured by every rank at once on its own subdomain (solver/block_tuner.hpp)
// with the slowest rank deciding, so that all ranks run the same blocks. Collective over comm.
#include <mpi.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "config/run_config.hpp"
#include "geometry/box.hpp"
#include "mpi/decomposition.hpp"
#include "solver/block_tuner.hpp"
#include "solver/tuning_cache.hpp"

namespace wave3d::engine {

struct TunedBlocking {
  Blocking blocking;       // what the run uses
  KernelVariant variant = KernelVariant::blocked;  // the kernel it uses (the tuner's choice for "auto")
  // How sweeps of several steps meet the neighbours (for "auto", the trial's choice or split tiling).
  TemporalHalo temporal_halo = TemporalHalo::split;
  std::string source;      // "given" (nothing was "auto"), "measured" or "cache"
  TuningOutcome measured;  // what the tuner measured and spent (nothing, from the cache)
  std::string cache_file;  // "" when blocking.cache = "off" or no home directory
  std::string notice;      // e.g. the cache could not be written; empty if none
  // A cached choice is timed again on scratch fields before it is used: its rate (MPoints/s, as the
  // search scores it) when it was chosen and now. Where it now runs more than kPaceTolerance faster,
  // the machine is faster than when it was chosen (a memory in its slow state hardly tells blocks
  // apart that its fast state does), and the blocks are measured again: source "measured", with
  // both rates kept here.
  std::optional<double> cached_rate_when_chosen;
  std::optional<double> cached_rate_now;
  // Where the cache held an entry whose search its budget cut short, shorter than this search wants
  // (CachedTuning::answers): that budget and this one, in seconds; the blocks were measured again.
  std::optional<std::pair<double, double>> cached_search_cut_short;

  // The z columns' prefetch distance (rows ahead) where they run; nullopt for the other kernels.
  std::optional<int> prefetch_rows() const;
  std::string summary_line() const;  // for the run summary, after "tuning:"
  // The trial on real steps: each contender's time per step and the choice, or why none ran; "" when
  // none applied.
  std::string trial_line() const;
  // Where a measured outcome went: ", kept in <file>", or why it was not.
  std::string kept_where() const;
  nlohmann::json to_json() const;
};

// "prefetch 2 rows ahead": the z columns' prefetch distance as the summary, bench and tune print it.
std::string prefetch_text(int rows);

// parallel.temporal_halo = "auto" made concrete for `decomposition`: "split" where the sweeps meet
// faces with neighbours and the thinnest subdomain along each such axis holds split tiling's
// (steps + 1) x R per face for blocking.steps (2 for "auto"), "deep" elsewhere. Split tiling computes
// nothing twice and sends one radius at a time; on one node it ran 2 ranks x 1 thread at 0.98-1.0 of
// 1 x 2 with T = 2-4 where deep halos reached 0.84-0.91. Any other value is returned as given. (Where
// it resolves to split and the tuner's trial on real steps runs, the run hands the tuner "auto", and
// the trial compares both: TunedBlocking::temporal_halo.)
TemporalHalo resolved_temporal_halo(const RunConfig& config, const mpi::Decomposition& decomposition);

// Why "auto" resolved to deep halos on `decomposition` where sweeps of several steps meet neighbours
// (the subdomains too thin for split tiling); nullopt when it did not, or when no such sweeps run.
std::optional<std::string> temporal_halo_notice(const RunConfig& config, const mpi::Decomposition& decomposition);

// What a run (or wave3d tune) of `config` on `decomposition` settles about sweeps of several steps
// before the tuner, with parallel.temporal_halo resolved (resolved_temporal_halo).
struct TemporalSetUp {
  // The temporal halo to hand the tuner: the resolved one, or "auto" where it resolved to split
  // tiling from "auto" (the tuner's trial may still find deep halos faster).
  TemporalHalo tuner_halo = TemporalHalo::deep;
  std::optional<std::string> obstacle;     // why blocking.steps cannot apply (temporal_blocking_obstacle)
  int max_steps = 1;                       // the most steps one sweep can take (1 with an obstacle)
  std::optional<std::string> halo_notice;  // temporal_halo_notice
};
TemporalSetUp temporal_set_up(const RunConfig& config, const mpi::Decomposition& decomposition);

// The most time steps one sweep can take for `config` on `decomposition`: along every axis whose
// faces have neighbours (cut between ranks, or periodic), the thinnest subdomain must hold the deep
// halo of steps x R points, since halos come from the immediate neighbours only, or with
// parallel.temporal_halo = "split" (steps + 1) x R points per face with a neighbour.
int max_steps_per_sweep(const RunConfig& config, const mpi::Decomposition& decomposition);

// Why a run of `config` on `decomposition` cannot sweep blocking.steps time steps at once (for
// "auto", 2), or nullopt when it can.
std::optional<std::string> temporal_blocking_obstacle(const RunConfig& config, const mpi::Decomposition& decomposition);

// Along each axis, the most faces (0, 1 or 2) of one subdomain of `decomposition` whose halo another
// subdomain fills (or the same one, across a periodic boundary): the deep halos a sweep computes.
NeighbourFaces neighbour_faces_of(const RunConfig& config, const mpi::Decomposition& decomposition);

// The seconds a cached choice is timed again for before it is used (after as long untimed).
inline constexpr double kCachedChoiceCheckSeconds = 0.05;

// Stores the measured `outcome` under `key` in the tuning cache `file`, unless the machine's pace moved
// during its search (TuningOutcome::pace_note): that choice answers for its own run only. Returns why
// writing failed, "" otherwise.
std::string keep_in_cache(const std::filesystem::path& file, const TuningKey& key, const TuningOutcome& outcome);

// The blocking `config` asks for on the subdomain `owned` (this rank's), tuned where it says "auto".
// neighbour_faces: neighbour_faces_of the run's decomposition. max_steps: the most time steps one
// sweep of the run can take (1: steps stay 1).
// measure_anyway: ignore the cache (wave3d tune), but still update it. real_steps: the tuner's trial
// on real steps (step_trial.hpp), where the caller can run them; the cache keeps the trial's choice.
template <typename T>
TunedBlocking tune_for_run(const RunConfig& config, MPI_Comm comm, const Box& owned,
                           const NeighbourFaces& neighbour_faces, int max_steps, const TuningBudget& budget,
                           bool measure_anyway = false, const RealStepTimer& real_steps = nullptr);

}  // namespace wave3d::engine
