#pragma once
// The file where the block tuner keeps what it measured (blocking.cache), so that the next run of
// the same shape on the same kind of machine starts with the answer instead of measuring again. One
// JSON document with one entry per key; a user may keep, copy or delete it.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "geometry/box.hpp"
#include "solver/block_tuner.hpp"

namespace wave3d {

// What a measurement depends on: the machine (CPU model and hardware threads), the threads per rank,
// the kernel asked for ("auto" when the tuner chooses it), radius and precision, the subdomain
// extent searched (the largest over ranks), the deep halos its sweeps compute (NeighbourFaces) and what was searched: block sizes, time
// steps per sweep (searched up to a limit, or given) and the prefetch distance (searched, or given).
struct TuningKey {
  std::string machine;
  int threads = 1;
  std::string kernel;
  int radius = 8;
  std::string precision;
  Index3 subdomain{0, 0, 0};
  bool size = true;
  bool steps = false;
  int sweep_steps = 1;  // steps tuned: the most one sweep may take; else the steps per sweep given
  NeighbourFaces neighbour_faces{0, 0, 0};
  // How sweeps of several steps meet those neighbours ("deep" or "split"): each costs its own points
  // and messages, so one's blocks do not answer for the other. "" where no sweep meets one.
  std::string temporal_halo = "";
  int prefetch_rows = 0;  // 0: searched (blocking.prefetch_rows = "auto"); else the distance given

  nlohmann::json to_json() const;
};

// What an entry answers: the blocking and the kernel it was measured with.
struct CachedTuning {
  Blocking blocking;
  KernelVariant variant = KernelVariant::blocked;
  TemporalHalo temporal_halo = TemporalHalo::split;  // for "auto": what the trial chose
  // The median of the rates the search measured for that blocking (its entry's "measured"); nullopt
  // where it holds none.
  std::optional<double> mpoints_per_second;
  // The search's budget, and whether it ran out before every candidate (or the trial) was measured.
  double budget_seconds = 0;
  bool budget_spent = false;

  // Whether this entry answers a search of `wanted_seconds`: a longer search is not answered by one
  // that was cut short by a smaller budget (it skipped candidates the longer one would measure). Up to
  // kCutShortTolerance times the entry's budget counts as the same search: a run sizes its budget from
  // the rate of its first candidate, and the entry's rate is that of the blocks it chose.
  bool answers(double wanted_seconds) const;
};
inline constexpr double kCutShortTolerance = 1.25;

// The file blocking.cache names: "" = $XDG_CACHE_HOME/wave3d/blocking.json (or
// $HOME/.cache/wave3d/blocking.json; nullopt without either), "off" = nullopt, else the path given.
std::optional<std::filesystem::path> tuning_cache_path(const std::string& setting);

// The blocking stored for `key`, if the file exists, parses and holds an entry for it that answers a
// search of `wanted_seconds` (CachedTuning::answers).
std::optional<CachedTuning> read_tuning_cache(const std::filesystem::path& file, const TuningKey& key,
                                          double wanted_seconds = 0);

// The trial on real steps of `outcome` as the two keys run.json's kernel.tuning and a cache entry carry:
// "trial", per contender its kernel, size, steps, temporal_halo, seconds_per_step and
// seconds_per_step_rounds; and
// "trial_skipped", why a trial that applied did not run (null otherwise); "trial_note", what a trial
// that ran left out, and why (null otherwise).
nlohmann::json trial_to_json(const TuningOutcome& outcome);

// Stores (or replaces) the entry for `key`, atomically; the other entries stay. The header (output/
// json_document.hpp) names "tune" as the command: the block tuner, of wave3d tune or of a run with
// blocking.size = "auto", is what writes the cache. Throws
// std::runtime_error with the reason when the file cannot be written.
void write_tuning_cache(const std::filesystem::path& file, const TuningKey& key, const TuningOutcome& outcome);

}  // namespace wave3d
