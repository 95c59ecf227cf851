#pragma once
// The block tuner behind blocking.size = "auto" and blocking.steps = "auto": it measures candidate
// cache blocks (and time steps per sweep) with the run's kernel, precision and threads on scratch
// fields shaped like the rank's subdomain, and keeps the fastest. With stencil.kernel = "auto" its
// search of block sizes runs the z columns and the blocked rows alike and keeps the faster kernel
// too: which one wins depends on the radius and on the machine, so it is measured, not assumed.
// With blocking.steps given above 1, the sizes are measured as sweeps of that many steps, and then the
// taller tiles such a sweep wants (sweep_tile_candidates) with the kernel and x, z sizes chosen.
// With blocking.prefetch_rows = "auto" and the z columns chosen, how many rows ahead their prefetches
// reach (1 to kMaxPrefetchRows) is measured last, with the blocks and steps chosen: the best distance
// depends on the latency of the caches the columns read from, which the machine, the radius and T
// change (256^3, R = 8, AMD Zen 5: one row ran 0.82-0.90x as fast as two, three 0.98-1.07x).
//
// On a decomposition whose ranks fill each other's halos, a sweep of several steps also computes deep
// halos, redundantly (deep_halo_overhead), which the scratch fields do not: a candidate's rate counts
// the points the run's sweeps own, its time the ones they compute, so that T is not chosen for a
// speed the run loses to its deep halos.
//
// The scratch fields have the subdomain's x and y extents (what decides how rows and planes sit in
// the caches) and kScratchPlanes planes, or more where the three fields would otherwise fit in twice
// the last-level cache (a subdomain that does not fit must not be measured as one that does), never
// more than the subdomain has. Candidates run in order of how often they won elsewhere, starting with
// the configured block, until the time budget is spent; while it lasts, the three leading candidates
// and the configured block are then measured twice more (one short measurement is one sample of a
// noisy machine), and the candidate with the best median is chosen: never slower than the configured
// block as measured here.
//
// A machine's pace can move during a search (a node's memory bandwidth here switched between two
// states 1.7x apart by itself): the candidates measured before and after such a move are not compared
// fairly, and the first pass's leaders may be those that ran after it. Measuring the configured block
// again beside the leaders lets the medians compare them in the same state. With a budget of at least
// kPaceCheckBudgetSeconds (the search's first kSearchWarmUpSeconds then warm the machine up): where
// it ran, by the median of those later measurements, more than kPaceTolerance faster or slower than
// at its first, the outcome says so (pace_note) and the choice is not kept in the tuning cache:
// candidates the first pass left behind were measured in another state, and the next run measures
// again instead of inheriting the choice.
//
// What the scratch fields cannot show is the halo exchange: a sweep of T steps exchanges halos T
// radii deep, of both time levels, and with one thread per rank on a busy node that costs as much as
// the levels in cache gain. So where T is searched on a subdomain with neighbours and the caller can
// time real steps (RealStepTimer: the run's own fields, exchange and halo mode), the best candidate of
// one step per sweep, the best of several and, where that is deeper, the best of two are run there,
// and the fastest per step is chosen: a trial within the budget (kTrialShare of it is kept for the
// trial), or skipped and said so. Handed parallel.temporal_halo = "auto" (the run does so only where
// split tiling fits its subdomains), the search counts no redundant points, as for split tiling, and
// the trial runs the deeper contenders with split tiling and with deep halos alike: which meets the
// neighbours faster depends on the network, so it is measured there too (where the budget left holds
// only one, split tiling, and the trial says so). With blocking.steps given above 1 and the sizes
// searched, "auto" has the trial run the best candidate of those steps with each temporal halo.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/run_config.hpp"
#include "geometry/box.hpp"
#include "stencil/blocking.hpp"
#include "stencil/kernel.hpp"

namespace wave3d {

inline constexpr std::int64_t kScratchPlanes = 48;

// What tells two candidates apart: kernel, block size, time steps per sweep and prefetch distance.
using CandidateKey = std::tuple<KernelVariant, Index3, int, int>;
inline CandidateKey candidate_key(KernelVariant variant, const Blocking& b) {
  return {variant, b.size, b.steps, b.prefetch_rows};
}

// Along each axis, on how many of its faces (0, 1 or 2) a neighbour fills the halo of the rank that has
// the most: a sweep computes that many deep halos.
using NeighbourFaces = std::array<int, 3>;
// Whether any face has a neighbour: the sweeps meet other ranks (or periodic images).
inline bool any_neighbour(const NeighbourFaces& faces) { return faces[0] > 0 || faces[1] > 0 || faces[2] > 0; }

struct TuningMeasurement {
  Blocking blocking;
  double mpoints_per_second = 0;  // the slowest rank's, of owned points (deep halos are cost, not progress)
  KernelVariant variant = KernelVariant::blocked;
};

// How long the tuner may measure: `fraction` of the run it tunes (estimated from the first
// candidate's rate and run_point_updates, the points the run will update), at least floor_seconds
// and at most cap_seconds.
struct TuningBudget {
  double run_point_updates = 0;
  double fraction = 0.03;
  double floor_seconds = 0.05;
  double cap_seconds = 30;
  double scratch_bytes = 0;  // the scratch fields together at least this big (e.g. 2x the LLC)

  // Exactly `seconds`, however long the run.
  static TuningBudget fixed(double seconds) { return {0, 0, seconds, seconds, 0}; }
  // What `request` asks for (TuningRequest::seconds, or a share of a run of run_point_updates).
  static TuningBudget for_request(const TuningRequest& request, double run_point_updates);
  // The seconds of a fixed budget; 0 for one that depends on the run.
  double fixed_seconds() const { return fraction == 0 ? floor_seconds : 0; }
  double seconds_for(double first_rate_mpoints) const;
};

// Times real time steps of a candidate on the run's own subdomain (its fields, halo exchange and halo
// mode, built as the run would build them) and returns the seconds per step the slowest rank took:
// the median of `repetitions` runs of `steps` steps, after one more as a warm-up (the first steps on
// new fields run slower). Collective where the run is: every rank calls it with the same arguments,
// in the same order.
// halo: how the contender's sweeps meet the faces with neighbours (never "auto").
using RealStepTimer = std::function<double(const Blocking& blocking, KernelVariant variant, TemporalHalo halo,
                                           int steps, int repetitions)>;

// The share of the budget kept for the trial on real steps, where one applies.
inline constexpr double kTrialShare = 0.3;
// Each trial contender is built kTrialRounds times (in the order A B B A, or A B C C B A) and runs
// kTrialRepetitions runs of kTrialSweeps sweeps of the deepest contender each time.
inline constexpr int kTrialRounds = 2;
inline constexpr int kTrialRepetitions = 3;
inline constexpr int kTrialSweeps = 2;

// One contender of the trial on real steps, and its seconds per step there: the mean of its rounds.
struct TrialMeasurement {
  Blocking blocking;
  KernelVariant variant = KernelVariant::blocked;
  TemporalHalo halo = TemporalHalo::split;  // how its sweeps met the neighbours (one step: no sweeps)
  double seconds_per_step = 0;
  std::vector<double> rounds;  // what each round's RealStepTimer call returned, in order
};

// How far the first candidate's rate may move between its first measurement and its later ones before
// a search counts as made while the machine changed pace. On one idle 2-core node the median of the
// later rates came within 0.89-1.09x of the first, in 12 searches of 0.6 and 3 s on 64^3 and 128^3.
inline constexpr double kPaceTolerance = 0.15;
// The untimed warm-up before the search's first measurement, and the budget from which it runs and the
// pace is checked: a 64^3 subdomain on 2 threads ran up to 2x slower for the first 20 ms, not after 0.1 s.
inline constexpr double kSearchWarmUpSeconds = 0.1;
inline constexpr double kPaceCheckBudgetSeconds = 0.5;

// The first candidate of `measured` (the configured block, measured first): the median of its later
// rates divided by its first; nullopt where it was measured once.
std::optional<double> search_pace_change(const std::vector<TuningMeasurement>& measured);

struct TuningOutcome {
  Blocking blocking;                         // the choice: the best median, or the trial's winner
  KernelVariant variant = KernelVariant::blocked;  // the kernel it was measured with
  // How sweeps of several steps meet the neighbours: as the config says, or for "auto" split tiling
  // unless the trial on real steps found deep halos faster.
  TemporalHalo temporal_halo = TemporalHalo::split;
  std::vector<TuningMeasurement> measured;   // in the order measured, the leaders' repeats included
  std::vector<TrialMeasurement> trial;       // the trial on real steps: one step per sweep first; empty if none ran
  std::string trial_skipped;                 // why a trial that applied did not run; empty otherwise
  std::string trial_note;                    // what a trial that ran left out (a temporal halo), and why
  // Where the machine's pace moved during the search by more than kPaceTolerance: by how much, as
  // measured by the first candidate (search_pace_change); empty otherwise. Such an outcome is not cached.
  std::string pace_note;
  double seconds = 0;                        // spent measuring (the slowest rank's), the trial included
  double budget_seconds = 0;                 // what it was allowed
  bool budget_spent = false;                 // stopped before every candidate (or the trial) was measured
  std::size_t candidates() const;            // the distinct blockings measured
  // The candidate with the best median among those of one step per sweep (several_steps false) or of
  // more; nullopt if none of them was measured.
  std::optional<TuningMeasurement> best_with(bool several_steps) const;
  // The same among those of exactly `steps_per_sweep` steps per sweep.
  std::optional<TuningMeasurement> best_with_steps(int steps_per_sweep) const;

 private:
  std::optional<TuningMeasurement> best_where(const std::function<bool(int steps)>& steps_wanted) const;
};

// The candidate block sizes for a subdomain of `extent`, `first` at the head, without two that cut
// it the same way, and without those that cut it into fewer blocks than `threads` (a thread without a
// block idles, however fast the others run) unless no candidate gives every thread a block. The
// shapes tried depend on how `variant` walks a block.
std::vector<Index3> block_size_candidates(const Index3& extent, const Index3& first, int threads = 1,
                                          KernelVariant variant = KernelVariant::blocked);
// The kernels a search of block sizes measures for stencil.kernel = `choice`: for "auto", where the
// z columns can run (their window fits the registers), both the columns and the blocked rows (which
// one wins depends on the radius and the machine: the columns by 1.6x at R = 2 on one AMD Zen 4, the
// rows by 1.1-1.4x at R = 1 on another), the rule's favourite first; else the one kernel chosen. A
// run with given block sizes (searching_sizes false) keeps the rule's kernel: the sizes were chosen for it.
std::vector<KernelVariant> kernel_candidates(KernelChoice choice, int radius, bool searching_sizes = true);
// The candidate time steps per sweep (1 first), at most max_steps.
std::vector<int> sweep_step_candidates(int radius, std::int64_t rows, int max_steps = kMaxStepsPerSweep);
// The candidate tile heights (blocking.size along y) of a sweep of `steps` levels over `rows` rows,
// `chosen` (the best height of one step per sweep) first. A tile's trapezoid loses R rows per level
// on each side to the borders, narrow pieces, and where a thread sweeps several tiles one after
// another the border between two of them reads the earlier tile's side from memory again: a sweep
// of several steps gains only with tiles several times 2(steps - 1)R high, taller than one step's
// best block. Heights that leave a thread without a tile are left out (unless none is left); none
// below the trapezoid's minimum, none that give as many tiles as another (plan_sweep_tiles).
std::vector<std::int64_t> sweep_tile_candidates(int steps, int radius, std::int64_t chosen, std::int64_t rows,
                                                int threads = 1);

// The trial on real steps: out's best candidate of one step per sweep against its best of several
// and, where that one is deeper than two steps, its best of two; each deeper one once per temporal
// halo in `halos` (split tiling and deep halos for "auto", else the one given). Where out measured
// nothing of one step per sweep (T given), the best of several alone, once per halo (nothing with one
// halo); nothing without a candidate of several steps;
// each timed by real_steps in kTrialRounds rounds, A B B A (A B C C B A); the fastest per step (the
// mean of its rounds) becomes out's choice, its temporal halo too (the fewer steps per sweep on a
// tie: the simpler run; then the halo listed first) and all go to out.trial, fewest steps first.
// Where the budget cannot hold every halo, the first alone runs, and out.trial_note says so. Skipped, with out.trial_skipped saying why and out.budget_spent set,
// when the budget left (out.budget_seconds - out.seconds) cannot hold it, as estimated from the
// candidates' rates on `points` points per step and build_seconds(steps), the time to build the run's
// fields for sweeps of that many steps. slowest: as for tune_blocking.
void run_real_step_trial(TuningOutcome& out, const RealStepTimer& real_steps, double points,
                         const std::function<double(int)>& build_seconds,
                         const std::function<double(double)>& slowest,
                         const std::vector<TemporalHalo>& halos = {TemporalHalo::split});

// The temporal halos a trial compares for parallel.temporal_halo = `setting`: split tiling, then deep
// halos, for "auto"; else the one given.
std::vector<TemporalHalo> trial_halos(TemporalHalo setting);

// Measures candidates for `config` (its kernel, radius, precision and blocking as the starting
// point) on scratch fields of `agreed_extent` from the corner of `owned`. `agreed_extent` is a
// subdomain extent every rank passes alike (the largest over ranks), so that all ranks measure the
// same list on as many points; with
// `neighbour_faces`, alike on every rank too, it gives the deep halos' share of each sweep. tune_size / tune_steps: what to search; max_steps: the most
// time steps one sweep of this run can take (1: temporal blocking does not apply). `budget` bounds the measuring. slowest(seconds)
// turns one candidate's time into the time every rank agrees on (the maximum over ranks; the
// identity on one), so that all ranks make the same choices; it is called the same number of times
// on every rank, given a `budget` alike on every rank. real_steps: where given, the trial on real steps described above.
// candidate_threads: the threads the candidates must give blocks to, alike on every rank (the most
// any rank runs); 0 = this process's OpenMP threads.
template <typename T>
TuningOutcome tune_blocking(const RunConfig& config, const Box& owned, const Index3& agreed_extent,
                            const NeighbourFaces& neighbour_faces, bool tune_size,
                            bool tune_steps, int max_steps, const TuningBudget& budget,
                            const std::function<double(double)>& slowest,
                            const RealStepTimer& real_steps = nullptr, int candidate_threads = 0);

// The rate the search would score `blocking` with `variant` at on scratch fields as tune_blocking's (holding at
// least scratch_bytes, as TuningBudget::scratch_bytes): timed for about `seconds` after as long untimed.
// For a cached choice: whether the machine runs it faster now than when it was chosen. Collective
// where slowest is (every rank calls it alike).
template <typename T>
double measure_blocking_rate(const RunConfig& config, const Box& owned, const Index3& agreed_extent,
                             const NeighbourFaces& neighbour_faces, const Blocking& blocking, KernelVariant variant,
                             double seconds, double scratch_bytes, const std::function<double(double)>& slowest);

}  // namespace wave3d
