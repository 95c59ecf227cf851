#pragma once
// RunConfig: every setting of one run as plain values, after parsing and validation. It is produced
// once (config/config_loader) and read everywhere else; nothing modifies it during a run.
#include <array>
#include <string>

#include "field/memory_policy.hpp"
#include "geometry/grid.hpp"
#include "init/initial_condition.hpp"
#include "runtime/denormals.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

enum class Precision { single, double_ };

// Which stencil implementation runs (stencil.kernel): automatic picks the fastest one built for this
// machine; reference is the plain one-thread triple loop every variant must equal bit for bit.
enum class KernelChoice { automatic, reference, blocked, jammed, columns, folded };

enum class VerifyMethod {
  automatic,  // exact for the mode condition, none otherwise
  exact,      // compare with the exact discrete solution (mode condition only)
  none,
};

enum class ProgressMode {
  automatic,  // live line on a terminal, periodic plain lines otherwise, nothing for short runs
  live,
  plain,
  off,
};

enum class HaloMode {
  bulk,     // exchange the halo, then compute the whole subdomain
  overlap,  // post the exchange, compute the interior, wait, compute the shell
};

// What sets the modes apart for everything outside the step driver: whether the subdomain computes
// while its messages are in flight. Only then does a progress engine apply, can part of the exchange
// be hidden, and are the interior and the shell separate sweeps.
constexpr bool computes_during_exchange(HaloMode mode) {
  switch (mode) {
    case HaloMode::bulk: return false;
    case HaloMode::overlap: return true;
  }
  return false;
}

enum class ProgressEngine {
  none,    // messages progress inside MPI calls only (start and wait)
  thread,  // a progress thread calls MPI_Testall while the OpenMP threads compute the interior
  poll,    // one compute thread tests the requests between cache blocks
};

// How a temporally blocked sweep (blocking.steps > 1) meets the faces it shares with other ranks.
enum class TemporalHalo {
  automatic,  // split where every subdomain is thick enough for it, deep elsewhere (resolved per run)
  deep,   // one exchange of a halo steps x R deep per sweep; the halo points computed again on both sides
  split,  // nothing computed twice: near the faces level by level, an exchange R deep before each level
};

struct ParallelSettings {
  Index3 process_grid{0, 0, 0};  // ranks along x, y, z; 0 = chosen to minimise the halo surface
  HaloMode halo = HaloMode::overlap;
  TemporalHalo temporal_halo = TemporalHalo::automatic;
  ProgressEngine progress = ProgressEngine::poll;  // used in overlap mode only
  int progress_core = -1;  // OS CPU index the progress thread is bound to; -1 = not bound
};

// Failure injection for testing the job's error path: rank fail_rank throws at step fail_step
// (0 = during set-up). fail_rank = -1 disables it.
struct DebugSettings {
  int fail_rank = -1;
  int fail_step = 0;
  // Testing crash safety: every rank stalls halfway through writing the checkpoint of this step (the
  // first time level written, the second not) until the job is killed; 0 = never.
  int stall_in_checkpoint = 0;
  // Testing the binding audit: this rank leaves its threads where the launcher and OpenMP put them
  // instead of binding them to the placement plan; -1 = none.
  int unbound_rank = -1;
};

// How wave3d places its own threads (placement.*). layout = none leaves binding to the launcher and
// OMP_PLACES/OMP_PROC_BIND; any other layout makes every rank bind its threads to the cores of the
// placement plan for its node (the same plan `wave3d plan` prints).
enum class PlacementLayout { none, rank_per_node, rank_per_socket, rank_per_numa, rank_per_core };

// How snapshot files get their values (output.snapshot_writer): one collective MPI-IO write through
// HDF5, or each rank's NUMA-bound I/O threads writing into the HDF5 file's contiguous dataset.
enum class SnapshotWriterKind { collective, io_threads };

struct PlacementSettings {
  PlacementLayout layout = PlacementLayout::none;
  std::string reserve = "none";        // "none", "per-socket:N", "per-node:N", "list:i,j,..."
  bool smt = false;                    // OpenMP places are hardware threads instead of cores
  bool high_bandwidth_memory = false;  // put the fields on the highest-bandwidth local NUMA node
  bool strict = false;                 // a wrong placement (binding audit) refuses the run
};

struct OutputSettings {
  std::string directory = "results/runs";  // parent of the per-run directory
  std::string name;                        // per-run directory name; empty = timestamp + host
  bool steps_csv = true;
  int snapshot_every = 0;  // write the wavefield to an HDF5 file every this many steps; 0 = never
  SnapshotWriterKind snapshot_writer = SnapshotWriterKind::collective;
  int io_threads = 0;  // I/O threads per rank for snapshot_writer = io-threads; 0 = one per NUMA node of the field
};

// Checkpoints (checkpoint.*) and where a run continues from (restart.from).
struct CheckpointSettings {
  int every = 0;          // write a checkpoint every this many steps; 0 = never
  std::string directory;  // where checkpoints go; empty = the run directory
  int keep = 2;           // complete checkpoints kept; older ones are deleted once a newer one is complete
};

struct RestartSettings {
  std::string from;  // checkpoint file (or directory of checkpoints) to continue from; empty = fresh start
};

// Hardware and software event counters per region and thread (counters.*).
struct CounterSettings {
  bool enabled = true;
  std::string events;  // comma-separated PAPI event names (counters/event_list.hpp)
};

// What the block tuner (solver/block_tuner.hpp) measures at start-up: blocking.size = "auto" and
// blocking.steps = "auto" (blocking.prefetch_rows = "auto" with them), and where it keeps what it found
// (blocking.cache).
// Configs built in code keep their blocking; the TOML default of blocking.size is "auto".
struct TuningRequest {
  bool size = false;   // blocking.size = "auto"
  bool steps = false;  // blocking.steps = "auto"
  // blocking.prefetch_rows = "auto": searched where the tuner runs for size or steps, not on its own.
  bool prefetch = false;
  std::string cache;   // "" = $XDG_CACHE_HOME (or ~/.cache)/wave3d/blocking.json; "off" = no cache
  // How long to measure: 0 = a few percent of the run (a run's start-up); > 0 = this many seconds,
  // whatever the run's length (wave3d tune --seconds, wave3d bench --tune-seconds).
  double seconds = 0;
  // Not a setting: false where the run found that the folded kernel's levels would not fit in memory
  // beside the plain fields, so that "auto" does not measure it.
  bool folded_fits = true;
  bool any() const { return size || steps; }
};

struct RunConfig {
  Grid grid{{64, 64, 64}, 10.0, Boundary::periodic, 8};
  Precision precision = Precision::single;
  KernelChoice kernel = KernelChoice::automatic;
  Denormals denormals = Denormals::flush;
  Physics physics{};
  Blocking blocking{};  // with tune.size or tune.steps, the starting point the tuner replaces
  TuningRequest tune{};
  MemoryPlacement memory{};  // init.policy and init.numa_node
  InitialCondition initial{};
  int steps = 100;
  int check_every = 10;  // test for NaN/Inf every this many steps (1 = every step)
  VerifyMethod verify = VerifyMethod::automatic;
  double verify_tolerance = 0.0;  // max abs error allowed in exact verification; 0 = derived from precision
  ProgressMode progress = ProgressMode::automatic;
  OutputSettings output{};
  CheckpointSettings checkpoint{};
  RestartSettings restart{};
  CounterSettings counters{};
  ParallelSettings parallel{};
  PlacementSettings placement{};
  DebugSettings debug{};
  int threads = 0;  // OpenMP threads per rank; 0 = the OpenMP default (OMP_NUM_THREADS)
};

}  // namespace wave3d
