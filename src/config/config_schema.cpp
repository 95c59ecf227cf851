#include "config/config_schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "config/enum_names.hpp"
#include "stencil/coefficients.hpp"

namespace wave3d {

namespace {

// Accessors for apply/read. The loader has already checked the value against the key's kind, so
// std::get cannot throw here.
int as_int(const ConfigValue& v) { return static_cast<int>(std::get<std::int64_t>(v)); }
// A key with accepts_auto holds either a value of its kind or the string "auto".
bool is_auto(const ConfigValue& v) { return std::holds_alternative<std::string>(v); }
double as_real(const ConfigValue& v) { return std::get<double>(v); }
bool as_bool(const ConfigValue& v) { return std::get<bool>(v); }
const std::string& as_text(const ConfigValue& v) { return std::get<std::string>(v); }
Index3 as_int3(const ConfigValue& v) { return std::get<Index3>(v); }
template <typename E>
E as_enum(const ConfigValue& v) {
  return *enum_from_name<E>(std::get<std::string>(v));  // the word was checked against words_of<E>
}
template <typename E>
ConfigValue word(E e) {
  return std::string(enum_name(e));
}
template <typename E>
constexpr std::span<const std::string_view> words_of() {
  return EnumNames<E>::names;
}

// RunConfig keeps counts in int; larger values must be rejected, not truncated.
constexpr double kIntMax = std::numeric_limits<int>::max();

constexpr KeySpec kSchema[] = {
    // [grid]
    {.key = "grid.n",
     .kind = ValueKind::int3,
     .default_toml = "[64, 64, 64]",
     .min = 1,
     .doc = "Global grid points per axis (n1, n2, n3), x fastest.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.grid.n = as_int3(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.grid.n; }},
    {.key = "grid.spacing",
     .kind = ValueKind::real,
     .default_toml = "10.0",
     .min = 0,
     .min_exclusive = true,
     .doc = "Distance between neighbouring points in metres, the same on every axis.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.grid.spacing = as_real(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.grid.spacing; }},
    {.key = "grid.boundary",
     .kind = ValueKind::string,
     .default_toml = R"("periodic")",
     .words = words_of<Boundary>(),
     .doc = R"("periodic" wraps around; "zero" holds the outer stencil.radius layer of points at 0.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.grid.boundary = as_enum<Boundary>(v); },
     .read = [](const RunConfig& c) { return word(c.grid.boundary); }},
    // [stencil]
    {.key = "stencil.radius",
     .kind = ValueKind::integer,
     .default_toml = "8",
     .numbers = kSupportedRadii,
     .doc = "Stencil half-length R; the scheme is of order 2R in space.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.grid.radius = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.grid.radius}; }},
    {.key = "stencil.precision",
     .kind = ValueKind::string,
     .default_toml = R"("single")",
     .words = words_of<Precision>(),
     .doc = "Floating-point type of the fields.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.precision = as_enum<Precision>(v); },
     .read = [](const RunConfig& c) { return word(c.precision); }},
    {.key = "stencil.kernel",
     .kind = ValueKind::string,
     .default_toml = R"("auto")",
     .words = words_of<KernelChoice>(),
     .doc = R"(Stencil implementation: "auto" (the variant measured fastest: "columns" where its z window )"
            R"(fits the vector registers, at R = 4 and 8 or where it marches two vectors at once (R = 1 and 2 with )"
            R"(AVX-512), else "blocked"), "folded" (vectors folded over 4 rows x 4 planes, 4 x 2 in double, )"
            R"(on fields kept in that layout: AVX-512 builds only; one time step per sweep), )"
            R"("columns" (cache blocks swept as columns along z, the z )"
            R"(neighbours held in registers), "jammed" (cache blocks, )"
            R"(explicit vectors, y neighbours reused in registers across rows), "blocked" (cache blocks, rows )"
            R"(vectorised by the compiler) or "reference" (the plain one-thread loop every variant equals bit )"
            R"(for bit).)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.kernel = as_enum<KernelChoice>(v); },
     .read = [](const RunConfig& c) { return word(c.kernel); }},
    {.key = "stencil.denormals",
     .kind = ValueKind::string,
     .default_toml = R"("flush")",
     .words = words_of<Denormals>(),
     .doc = R"(Subnormal floats on the threads that compute: "flush" reads and writes them as zero (the x86 )"
            R"(FTZ and DAZ bits, as Intel's compilers, ISO3DFD and YASK run; a fading wave front otherwise )"
            R"(costs a microcode assist per operation on Intel cores), "keep" is IEEE gradual underflow. )"
            R"(Every kernel variant equals the reference bit for bit under either.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.denormals = as_enum<Denormals>(v); },
     .read = [](const RunConfig& c) { return word(c.denormals); }},
    // [physics]
    {.key = "physics.velocity",
     .kind = ValueKind::real,
     .default_toml = "1500.0",
     .min = 0,
     .min_exclusive = true,
     .doc = "Wave speed in m/s, uniform over the grid.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.physics.velocity = as_real(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.physics.velocity; }},
    {.key = "physics.dt",
     .kind = ValueKind::real,
     .default_toml = "0.001",
     .min = 0,
     .min_exclusive = true,
     .doc = "Time step in seconds; velocity*dt/spacing must stay within the stability (CFL) limit.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.physics.dt = as_real(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.physics.dt; }},
    // [blocking]
    {.key = "blocking.size",
     .kind = ValueKind::int3,
     .default_toml = R"("auto")",
     .min = 0,
     .accepts_auto = true,
     .doc = "Cache-block size of the kernel's loops per axis (x, y, z); 0 = the whole axis. \"auto\": measured "
            "at start-up on this machine for this subdomain, kernel and thread count (a few candidates in a time "
            "bounded by a few percent of the run, or read from blocking.cache).",
     .apply = [](RunConfig& c, const ConfigValue& v) {
       c.tune.size = is_auto(v);
       if (!c.tune.size) c.blocking.size = as_int3(v);
     },
     .read = [](const RunConfig& c) -> ConfigValue {
       if (c.tune.size) return std::string("auto");
       return c.blocking.size;
     }},
    {.key = "blocking.steps",
     .kind = ValueKind::integer,
     .default_toml = "1",
     .min = 1,
     .max = kMaxStepsPerSweep,
     .accepts_auto = true,
     .doc = "Time steps per sweep over memory (temporal blocking): the update region is cut into tiles of "
            "blocking.size[1] rows (at least 2 (steps - 1) R) and each tile advances this many steps before the "
            "next is read. Beyond faces with neighbours (other ranks, or periodic boundaries) either nothing is "
            "computed twice (split tiling), or the halo is exchanged steps x R deep once per sweep and the points "
            "within it computed again on both sides (deep halos): parallel.temporal_halo chooses; where the thinnest subdomain along "
            "such an axis is thinner than either needs, the run says so and sweeps 1 step at a time. \"auto\": "
            "measured with the block size where it applies.",
     .apply = [](RunConfig& c, const ConfigValue& v) {
       c.tune.steps = is_auto(v);
       if (!c.tune.steps) c.blocking.steps = static_cast<int>(as_int(v));
     },
     .read = [](const RunConfig& c) -> ConfigValue {
       if (c.tune.steps) return std::string("auto");
       return std::int64_t{c.blocking.steps};
     }},
    {.key = "blocking.prefetch_rows",
     .kind = ValueKind::integer,
     .default_toml = R"("auto")",
     .min = 1,
     .max = kMaxPrefetchRows,
     .accepts_auto = true,
     .doc = "How many rows ahead the z-column kernel (stencil.kernel = \"columns\") asks for the lines its next "
            "columns read (software prefetch). \"auto\": measured by the block tuner with the blocks it chooses "
            "where it runs (blocking.size or blocking.steps \"auto\"), else 2 at R >= 4 and 1 below. The other "
            "kernels ignore it.",
     .apply = [](RunConfig& c, const ConfigValue& v) {
       c.tune.prefetch = is_auto(v);
       c.blocking.prefetch_rows = c.tune.prefetch ? 0 : static_cast<int>(as_int(v));
     },
     .read = [](const RunConfig& c) -> ConfigValue {
       if (c.tune.prefetch) return std::string("auto");
       return std::int64_t{c.blocking.prefetch_rows};
     }},
    {.key = "blocking.cache",
     .kind = ValueKind::string,
     .default_toml = R"("")",
     .doc = "File where the tuner keeps what it measured, per machine, subdomain, kernel and thread count, and "
            "reads it back instead of measuring again; \"\" = $XDG_CACHE_HOME/wave3d/blocking.json (or "
            "~/.cache/wave3d/blocking.json), \"off\" = measure every time and keep nothing.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.tune.cache = std::get<std::string>(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.tune.cache; }},
    // [init]
    {.key = "init.policy",
     .kind = ValueKind::string,
     .default_toml = R"("first-touch")",
     .words = words_of<MemoryPolicy>(),
     .doc = R"(Where the pages of the fields go: written first by the threads that compute them ("first-touch"), )"
            R"(by one thread ("serial"), interleaved over the local NUMA nodes, or all on init.numa_node ("node").)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.memory.policy = as_enum<MemoryPolicy>(v); },
     .read = [](const RunConfig& c) { return word(c.memory.policy); }},
    {.key = "init.numa_node",
     .kind = ValueKind::integer,
     .default_toml = "-1",
     .min = -1,
     .max = kIntMax,
     .doc = R"(NUMA node (OS index) holding every page when init.policy = "node"; -1 otherwise.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.memory.node = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.memory.node}; }},
    {.key = "init.huge_pages",
     .kind = ValueKind::boolean,
     .default_toml = "true",
     .doc = "Ask the kernel for transparent huge pages (madvise) for the fields, where its THP mode is "
            "\"madvise\" or \"always\": 2 MiB pages keep the stencil's 2R+1 planes in the TLB. false = base pages.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.memory.huge_pages = as_bool(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.memory.huge_pages; }},
    {.key = "init.condition",
     .kind = ValueKind::string,
     .default_toml = R"("mode")",
     .words = words_of<InitialKind>(),
     .doc = R"(Initial field: a standing Fourier "mode" (exact solution known), ISO3DFD's "seed-cube", )"
            R"(or a "ricker" point source.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.initial.kind = as_enum<InitialKind>(v); },
     .read = [](const RunConfig& c) { return word(c.initial.kind); }},
    {.key = "init.amplitude",
     .kind = ValueKind::real,
     .default_toml = "1.0",
     .doc = "Peak value of the mode, or amplitude of the Ricker source.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.initial.amplitude = as_real(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.initial.amplitude; }},
    {.key = "init.wave",
     .kind = ValueKind::int3,
     .default_toml = "[1, 1, 1]",
     .doc = "mode: whole periods of the mode along x, y, z.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.initial.wave = as_int3(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return Index3(c.initial.wave); }},
    // [source]
    {.key = "source.position",
     .kind = ValueKind::int3,
     .default_toml = "",
     .min = 0,
     .doc = "ricker: source point in global indices; absent = the grid centre (n1/2, n2/2, n3/2).",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.initial.source = as_int3(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.initial.source; }},
    {.key = "source.frequency",
     .kind = ValueKind::real,
     .default_toml = "10.0",
     .min = 0,
     .min_exclusive = true,
     .doc = "ricker: peak frequency of the wavelet in Hz.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.initial.frequency = as_real(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.initial.frequency; }},
    // [run]
    {.key = "run.steps",
     .kind = ValueKind::integer,
     .default_toml = "100",
     .min = 1,
     .max = kIntMax,
     .doc = "Number of time steps.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.steps = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.steps}; }},
    {.key = "run.check_every",
     .kind = ValueKind::integer,
     .default_toml = "10",
     .min = 1,
     .max = kIntMax,
     .doc = "Test the field for NaN/Inf every this many steps (1 = every step); with several time steps per sweep "
            "(blocking.steps), after the sweep that reaches or passes each multiple.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.check_every = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.check_every}; }},
    {.key = "run.threads",
     .kind = ValueKind::integer,
     .default_toml = "0",
     .min = 0,
     .max = kIntMax,
     .doc = "OpenMP threads per rank; 0 = the OpenMP default (OMP_NUM_THREADS). At most 64 per CPU the rank may run "
            "on and at most the OpenMP runtime's limit (OMP_THREAD_LIMIT), checked on every rank; more threads than "
            "CPUs run, and the binding audit calls the node oversubscribed.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.threads = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.threads}; }},
    {.key = "run.progress",
     .kind = ValueKind::string,
     .default_toml = R"("auto")",
     .words = words_of<ProgressMode>(),
     .doc = R"(Progress display; "auto" = a live line on a terminal of your own, plain lines in a log or under mpirun/srun (whose terminals are their own), none for short runs; WAVE3D_PROGRESS=live|plain|off decides "auto".)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.progress = as_enum<ProgressMode>(v); },
     .read = [](const RunConfig& c) { return word(c.progress); }},
    // [parallel]
    {.key = "parallel.process_grid",
     .kind = ValueKind::int3,
     .default_toml = "[0, 0, 0]",
     .min = 0,
     .doc = "MPI ranks along x, y, z; 0 = chosen to minimise the halo surface. Non-zero entries must divide the rank count.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.parallel.process_grid = as_int3(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.parallel.process_grid; }},
    {.key = "parallel.halo",
     .kind = ValueKind::string,
     .default_toml = R"("overlap")",
     .words = words_of<HaloMode>(),
     .doc = R"("bulk": exchange, then compute everything; "overlap": compute the interior while messages fly, then the shell (faces across x are exchanged before the interior: their shell costs more than their wait).)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.parallel.halo = as_enum<HaloMode>(v); },
     .read = [](const RunConfig& c) { return word(c.parallel.halo); }},
    {.key = "parallel.temporal_halo",
     .kind = ValueKind::string,
     .default_toml = R"("auto")",
     .words = words_of<TemporalHalo>(),
     .doc = R"(How sweeps of blocking.steps > 1 meet the faces shared with other ranks: "deep" exchanges both )"
            R"(time levels steps x R deep once per sweep and computes the points within that halo again on both )"
            R"(sides (overlapped tiling); "split" computes nothing twice: the tiles narrow towards those faces and )"
            R"(the rest near them is computed level by level after the sweep, the current level exchanged R deep )"
            R"(before each (split tiling; steps exchanges per sweep instead of one, but neither the redundant )"
            R"(points nor the deeper messages). "split" needs every subdomain (steps + 1) x R thick per face with )"
            R"(a neighbour along an axis; where one is thinner, the run says so and sweeps 1 step at a time. )"
            R"("auto" takes split tiling where every subdomain is that thick for blocking.steps (2 for "auto"), )"
            R"(and deep halos elsewhere, saying why; where the tuner's trial on real steps runs (blocking.steps )"
            R"(= "auto", or blocking.size = "auto" with blocking.steps given above 1), it runs the sweeps both )"
            R"(ways and keeps the faster. The summary and run.json name the one that ran.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.parallel.temporal_halo = as_enum<TemporalHalo>(v); },
     .read = [](const RunConfig& c) { return word(c.parallel.temporal_halo); }},
    {.key = "parallel.progress",
     .kind = ValueKind::string,
     .default_toml = R"("poll")",
     .words = words_of<ProgressEngine>(),
     .doc = R"(Who drives messages during overlap: "none" (MPI calls only), "thread" (a progress thread; )"
            R"(needs MPI_THREAD_MULTIPLE), "poll" (a compute thread between blocks). Bulk runs ignore it.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.parallel.progress = as_enum<ProgressEngine>(v); },
     .read = [](const RunConfig& c) { return word(c.parallel.progress); }},
    {.key = "parallel.progress_core",
     .kind = ValueKind::integer,
     .default_toml = "-1",
     .min = -1,
     .max = kIntMax,
     .doc = "OS CPU index the progress thread is bound to; -1 = not bound.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.parallel.progress_core = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.parallel.progress_core}; }},
    // [placement]
    {.key = "placement.layout",
     .kind = ValueKind::string,
     .default_toml = R"("none")",
     .words = words_of<PlacementLayout>(),
     .doc = R"("none" leaves thread binding to the launcher and OMP_PLACES; a layout makes each rank bind its )"
            R"(threads to the cores its node's placement plan gives it (see wave3d plan).)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.placement.layout = as_enum<PlacementLayout>(v); },
     .read = [](const RunConfig& c) { return word(c.placement.layout); }},
    {.key = "placement.reserve",
     .kind = ValueKind::string,
     .default_toml = R"("none")",
     .doc = R"(Cores kept from the compute threads: "none", "per-socket:N", "per-node:N" (the highest-numbered, )"
            R"(as Slurm's core specialisation) or "list:i,j" (logical core indices).)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.placement.reserve = as_text(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.placement.reserve; }},
    {.key = "placement.smt",
     .kind = ValueKind::boolean,
     .default_toml = "false",
     .doc = "With a layout: OpenMP threads on hardware threads (SMT) instead of whole cores.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.placement.smt = as_bool(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.placement.smt; }},
    {.key = "placement.high_bandwidth_memory",
     .kind = ValueKind::boolean,
     .default_toml = "false",
     .doc = "Put the fields on the highest-bandwidth NUMA node local to the rank (HBM, MCDRAM) where there is one.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.placement.high_bandwidth_memory = as_bool(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.placement.high_bandwidth_memory; }},
    {.key = "placement.strict",
     .kind = ValueKind::boolean,
     .default_toml = "false",
     .doc = "Refuse to measure (exit 2 before the time loop) when the binding audit finds the placement wrong: "
            "threads sharing CPUs while others idle, floating threads, an oversubscribed node, threads off the plan "
            "or without work (also --strict-placement).",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.placement.strict = as_bool(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.placement.strict; }},
    // [debug]
    {.key = "debug.fail_rank",
     .kind = ValueKind::integer,
     .default_toml = "-1",
     .min = -1,
     .max = kIntMax,
     .doc = "Testing the error path: this rank fails on purpose at debug.fail_step; -1 = never.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.debug.fail_rank = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.debug.fail_rank}; }},
    {.key = "debug.fail_step",
     .kind = ValueKind::integer,
     .default_toml = "0",
     .min = 0,
     .max = kIntMax,
     .doc = "Step at which debug.fail_rank fails (0 = during set-up, before the time loop).",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.debug.fail_step = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.debug.fail_step}; }},
    {.key = "debug.unbound_rank",
     .kind = ValueKind::integer,
     .default_toml = "-1",
     .min = -1,
     .max = kIntMax,
     .doc = "Testing the binding audit: this rank skips binding its threads to the placement plan; -1 = none.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.debug.unbound_rank = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.debug.unbound_rank}; }},
    {.key = "debug.stall_in_checkpoint",
     .kind = ValueKind::integer,
     .default_toml = "0",
     .min = 0,
     .max = kIntMax,
     .doc = "Testing crash safety: every rank stalls halfway through writing the checkpoint of this step, until "
            "killed (at most 10 minutes); 0 = never.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.debug.stall_in_checkpoint = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.debug.stall_in_checkpoint}; }},
    // [verify]
    {.key = "verify.method",
     .kind = ValueKind::string,
     .default_toml = R"("auto")",
     .words = words_of<VerifyMethod>(),
     .doc = R"("exact" compares with the exact discrete solution (mode only); "auto" = exact for mode, else none.)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.verify = as_enum<VerifyMethod>(v); },
     .read = [](const RunConfig& c) { return word(c.verify); }},
    {.key = "verify.tolerance",
     .kind = ValueKind::real,
     .default_toml = "0.0",
     .min = 0,
     .doc = "Largest absolute error exact verification accepts; 0 = derived from the precision.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.verify_tolerance = as_real(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.verify_tolerance; }},
    // [output]
    {.key = "output.directory",
     .kind = ValueKind::string,
     .default_toml = R"("results/runs")",
     .doc = "Parent directory of the per-run result directory.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.output.directory = as_text(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.output.directory; }},
    {.key = "output.name",
     .kind = ValueKind::string,
     .default_toml = R"("")",
     .doc = "Name of the per-run directory; empty = timestamp and host name.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.output.name = as_text(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.output.name; }},
    {.key = "output.steps_csv",
     .kind = ValueKind::boolean,
     .default_toml = "true",
     .doc = "Write per-step timings to steps.csv in the run directory.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.output.steps_csv = as_bool(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.output.steps_csv; }},
    {.key = "output.snapshot_every",
     .kind = ValueKind::integer,
     .default_toml = "0",
     .min = 0,
     .max = kIntMax,
     .doc = "Write the wavefield to <run directory>/wavefield_<step>.h5 (parallel HDF5, with the sidecar "
            "wavefield.xmf for ParaView and VisIt) every this many steps; 0 = never.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.output.snapshot_every = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.output.snapshot_every}; }},
    {.key = "output.snapshot_writer",
     .kind = ValueKind::string,
     .default_toml = R"("collective")",
     .words = words_of<SnapshotWriterKind>(),
     .doc = R"(How snapshot values reach the file: "collective" (one collective MPI-IO write through HDF5); )"
            R"("io-threads" (HDF5 lays the file out, then each rank's I/O threads, bound to the NUMA node of )"
            R"(their part of the field, pwrite it into the contiguous dataset; the same file).)",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.output.snapshot_writer = as_enum<SnapshotWriterKind>(v); },
     .read = [](const RunConfig& c) { return word(c.output.snapshot_writer); }},
    {.key = "output.io_threads",
     .kind = ValueKind::integer,
     .default_toml = "0",
     .min = 0,
     .max = 4096,
     .doc = "I/O threads per rank for output.snapshot_writer = \"io-threads\"; 0 = one per NUMA node holding the "
            "rank's field.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.output.io_threads = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.output.io_threads}; }},
    // [checkpoint]
    {.key = "checkpoint.every",
     .kind = ValueKind::integer,
     .default_toml = "0",
     .min = 0,
     .max = kIntMax,
     .doc = "Write a checkpoint (both time levels, enough to continue bitwise) every this many steps; 0 = never.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.checkpoint.every = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.checkpoint.every}; }},
    {.key = "checkpoint.directory",
     .kind = ValueKind::string,
     .default_toml = R"("")",
     .doc = "Directory of the checkpoint_<step>.h5 files (created if missing); empty = the run directory.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.checkpoint.directory = as_text(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.checkpoint.directory; }},
    {.key = "checkpoint.keep",
     .kind = ValueKind::integer,
     .default_toml = "2",
     .min = 1,
     .max = kIntMax,
     .doc = "Complete checkpoints of this run kept; an older one is deleted only once a newer one is complete.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.checkpoint.keep = as_int(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return std::int64_t{c.checkpoint.keep}; }},
    // [restart]
    {.key = "restart.from",
     .kind = ValueKind::string,
     .default_toml = R"("")",
     .doc = "Continue from this checkpoint file (or the newest checkpoint_<step>.h5 in this directory) up to "
            "run.steps; any rank count or process grid. Empty = start from the initial condition.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.restart.from = as_text(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.restart.from; }},
    // [counters]
    {.key = "counters.enabled",
     .kind = ValueKind::boolean,
     .default_toml = "true",
     .doc = "Count counters.events per region (compute, halo, whole step) and thread, with PAPI, and the DRAM "
            "traffic where the machine exposes it.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.counters.enabled = as_bool(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.counters.enabled; }},
    {.key = "counters.events",
     .kind = ValueKind::string,
     .default_toml = R"("PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,perf::TASK-CLOCK,perf::CONTEXT-SWITCHES,)"
                     R"(perf::CPU-MIGRATIONS,perf::PAGE-FAULTS")",
     .doc = "Comma-separated PAPI event names (papi_avail, papi_native_avail); an event this machine cannot count "
            "is reported as unavailable with the reason and the run goes on.",
     .apply = [](RunConfig& c, const ConfigValue& v) { c.counters.events = as_text(v); },
     .read = [](const RunConfig& c) -> ConfigValue { return c.counters.events; }},
};

// Plain Levenshtein distance; key names are short, so the O(n*m) table is negligible.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view leaf_name(std::string_view key) {
  const auto dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

std::string format_bound(double v) { return v == kIntMax ? fmt::format("{}", static_cast<int>(v)) : fmt::format("{}", v); }

std::string range_text(const KeySpec& spec) {
  const bool has_min = std::isfinite(spec.min), has_max = std::isfinite(spec.max);
  if (has_min && has_max) return fmt::format("from {} to {}", format_bound(spec.min), format_bound(spec.max));
  if (has_min) return fmt::format("{} {}", spec.min_exclusive ? ">" : ">=", format_bound(spec.min));
  if (has_max) return fmt::format("<= {}", format_bound(spec.max));
  return {};
}

}  // namespace

std::span<const KeySpec> config_schema() { return kSchema; }

const KeySpec* find_key_spec(std::string_view key) {
  for (const KeySpec& spec : kSchema)
    if (spec.key == key) return &spec;
  return nullptr;
}

std::optional<std::string> closest_key(std::string_view key) {
  // Allow roughly one typo per four characters (at least two), so "stencil.raduis" finds
  // "stencil.radius" but unrelated names are not suggested.
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 4);
  std::optional<std::string_view> best;
  std::size_t best_distance = limit + 1;
  for (const KeySpec& spec : kSchema) {
    const std::size_t d = edit_distance(key, spec.key);
    if (d < best_distance) {
      best = spec.key;
      best_distance = d;
    }
  }
  if (best) return std::string(*best);
  // The right name in the wrong section ("grid.radius", or "steps" outside any table).
  std::string same_name;
  for (const KeySpec& spec : kSchema)
    if (leaf_name(spec.key) == leaf_name(key)) same_name += (same_name.empty() ? "" : " or ") + std::string(spec.key);
  if (!same_name.empty()) return same_name;
  return std::nullopt;
}

std::string_view kind_text(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer: return "integer";
    case ValueKind::real: return "number";
    case ValueKind::boolean: return "boolean";
    case ValueKind::string: return "string";
    case ValueKind::int3: return "array of 3 integers";
  }
  return "?";
}

std::string allowed_text(const KeySpec& spec) {
  if (spec.accepts_auto) {
    KeySpec plain = spec;
    plain.accepts_auto = false;
    return allowed_text(plain) + R"( or "auto")";
  }
  switch (spec.kind) {
    case ValueKind::boolean: return "true, false";
    case ValueKind::string:
      if (spec.words.empty()) return "any string";
      return fmt::format("\"{}\"", fmt::join(spec.words, "\", \""));
    case ValueKind::integer:
      if (!spec.numbers.empty()) return fmt::format("{}", fmt::join(spec.numbers, ", "));
      return range_text(spec).empty() ? "any integer" : "integer " + range_text(spec);
    case ValueKind::real: return range_text(spec).empty() ? "any finite number" : "number " + range_text(spec);
    case ValueKind::int3:
      return range_text(spec).empty() ? "3 integers" : "3 integers, each " + range_text(spec);
  }
  return {};
}

}  // namespace wave3d
