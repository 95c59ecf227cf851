#include "topology/launcher_lines.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace wave3d {
namespace {

struct OmpEnv {
  int threads = 0;
  std::string_view places;
};

OmpEnv omp_env(const PlacementPlan& plan) {
  return OmpEnv{plan.threads_per_rank, plan.request.use_smt ? "threads" : "cores"};
}

std::string_view ppr_resource(DomainKind kind) {
  // Open MPI 4.1's spelling; 5.0 renamed socket to package.
  switch (kind) {
    case DomainKind::node: return "node";
    case DomainKind::socket: return "socket";
    case DomainKind::numa: return "numa";
  }
  return "?";
}

// Every core a rank's process must be allowed on: its compute cores, then its progress core.
std::vector<int> process_cores(const PlannedRank& rank) {
  std::vector<int> cores = rank.cores;
  if (rank.progress_core) cores.push_back(*rank.progress_core);
  return cores;
}

// Does --map-by ppr:k:<domain>:PE=B reproduce the plan? Open MPI gives the j-th rank of a domain the
// j-th run of B cores of that domain, and OpenMP's close binding puts the threads on the first places,
// so the compute cores must come first and the progress core right after them.
bool ppr_reproduces(const PlacementPlan& plan, int block) {
  for (const PlannedRank& rank : plan.ranks) {
    const std::vector<int>& domain = plan.domain_cores[static_cast<std::size_t>(rank.domain)];
    const auto first = static_cast<std::size_t>(rank.rank % plan.ranks_per_domain * block);
    const std::vector<int> cores = process_cores(rank);
    if (cores.size() != static_cast<std::size_t>(block) || first + cores.size() > domain.size()) return false;
    if (!std::equal(cores.begin(), cores.end(), domain.begin() + static_cast<std::ptrdiff_t>(first))) return false;
  }
  return true;
}

// Does srun --distribution=block:block --cpus-per-task reproduce the plan? Slurm hands out the node's
// usable cores (all but the --core-spec ones) in order, cores_per_rank to each rank.
bool slurm_blocks_reproduce(const PlacementPlan& plan, const std::vector<int>& excluded) {
  std::vector<int> usable;
  for (int c = 0; c < plan.node_cores; ++c)
    if (!std::binary_search(excluded.begin(), excluded.end(), c)) usable.push_back(c);
  const auto per_rank = static_cast<std::size_t>(plan.cores_per_rank);
  for (const PlannedRank& rank : plan.ranks) {
    const std::size_t first = static_cast<std::size_t>(rank.rank) * per_rank;
    if (rank.progress_core || rank.cores.size() != per_rank || first + per_rank > usable.size()) return false;
    if (!std::equal(rank.cores.begin(), rank.cores.end(), usable.begin() + static_cast<std::ptrdiff_t>(first)))
      return false;
  }
  return true;
}

std::string mpirun_line(const PlacementPlan& plan, const LauncherOptions& opt, const std::string& program,
                        std::vector<std::string>& notes) {
  const bool binds_itself = opt.program == kRunProgram;
  const OmpEnv env = omp_env(plan);
  const int block = plan.cores_per_rank + (plan.request.progress_thread ? 1 : 0);
  const std::string env_flags = fmt::format("-x OMP_NUM_THREADS={} -x OMP_PLACES={} -x OMP_PROC_BIND=close",
                                            env.threads, env.places);
  const int total = opt.nodes * plan.ranks_per_node;
  const std::string_view resource = ppr_resource(plan.domain_kind);
  if (ppr_reproduces(plan, block)) {
    // wave3d run with the plan's settings binds every thread itself; another program has OpenMP's binding.
    const std::string threads_there =
        binds_itself ? fmt::format("wave3d binds {} before it and the progress thread to it",
                                   env.threads == 1 ? std::string("its OpenMP thread to the core")
                                                    : fmt::format("its {} OpenMP threads to the cores", env.threads))
                     : fmt::format("wave3d binds the progress thread to it, OpenMP's close binding keeps the {} "
                                   "threads on the cores before it",
                                   env.threads);
    if (plan.request.progress_thread)
      notes.push_back(fmt::format("mpirun: PE={} includes each rank's progress core; {}", block, threads_there));
    return fmt::format("mpirun -n {} --map-by ppr:{}:{}:PE={} --bind-to core {} {}", total, plan.ranks_per_domain,
                       resource, block, env_flags, program);
  }
  notes.push_back(fmt::format("mpirun: --map-by ppr:N:<domain>:PE=M can only give a rank consecutive cores from the "
                              "start of its domain, which this plan does not; the ranks start unbound and {}",
                              binds_itself ? "wave3d binds each rank's threads to the plan's cores itself"
                                           : "must bind their threads themselves (or use the srun line)"));
  return fmt::format("mpirun -n {} --map-by ppr:{}:{} --bind-to none {} {}", total, plan.ranks_per_domain, resource,
                     env_flags, program);
}

std::string srun_line(const PlacementPlan& plan, const LauncherOptions& opt, const std::string& program,
                      std::vector<std::string>& notes) {
  const OmpEnv env = omp_env(plan);
  const bool progress = plan.request.progress_thread;
  // Specialised cores are closed to the job's processes, so progress threads cannot live on them.
  const bool core_spec = !plan.reserved_cores.empty() && plan.reserved_follow_core_spec && !progress;
  const bool by_cores = (plan.reserved_cores.empty() || core_spec) &&
                        slurm_blocks_reproduce(plan, core_spec ? plan.reserved_cores : std::vector<int>{});

  std::string line = fmt::format("srun --nodes={} --ntasks={} --ntasks-per-node={}", opt.nodes,
                                 opt.nodes * plan.ranks_per_node, plan.ranks_per_node);
  if (plan.domain_kind != DomainKind::node && plan.sockets > 0 && plan.ranks_per_node % plan.sockets == 0)
    line += fmt::format(" --ntasks-per-socket={}", plan.ranks_per_node / plan.sockets);
  if (by_cores) {
    // Slurm counts every hardware thread as a CPU on SMT nodes: whole cores are cores x threads.
    line += fmt::format(" --cpus-per-task={}", plan.cores_per_rank * plan.pus_per_core);
    if (core_spec) line += fmt::format(" --core-spec={}", plan.reserved_cores.size());
    line += " --cpu-bind=cores --distribution=block:block";
  } else {
    std::vector<std::string> masks;
    std::size_t cpus = 0;
    for (const PlannedRank& rank : plan.ranks) {
      std::vector<int> pus;
      for (const PlannedThread& t : rank.threads) pus.insert(pus.end(), t.pus.begin(), t.pus.end());
      pus.insert(pus.end(), rank.progress_pus.begin(), rank.progress_pus.end());
      // With SMT off a thread's place is the whole core; with SMT on, unused siblings stay out.
      std::sort(pus.begin(), pus.end());
      pus.erase(std::unique(pus.begin(), pus.end()), pus.end());
      cpus = std::max(cpus, pus.size());
      masks.push_back(cpu_mask_hex(pus));
    }
    line += fmt::format(" --cpus-per-task={} --cpu-bind=mask_cpu:{}", cpus, fmt::join(masks, ","));
    if (!plan.reserved_cores.empty() && !plan.reserved_follow_core_spec && !progress)
      notes.push_back("srun: the reserved cores are not the ones --core-spec would set aside (the highest-numbered of "
                      "each socket), so the masks keep them idle instead");
    else if (progress)
      notes.push_back("srun: each rank's mask includes its progress core; --core-spec would close those cores to "
                      "the job");
  }
  if (core_spec)
    notes.push_back(fmt::format("srun: --core-spec takes effect only where srun creates the allocation; in a batch "
                                "script put it on the allocation (#SBATCH --core-spec={})",
                                plan.reserved_cores.size()));
  if (plan.pus_per_core > 1)
    notes.push_back(fmt::format("srun: CPU counts assume Slurm counts each of the {} hardware threads of a core as a "
                                "CPU (ThreadsPerCore={})",
                                plan.pus_per_core, plan.pus_per_core));
  // A rank that dies (killed, or out of memory) ends the step, as under mpirun: without this srun
  // lets the others run on, and they wait for its halo messages until the job's time limit.
  line += " --kill-on-bad-exit=1";
  line += fmt::format(" --export=ALL,OMP_NUM_THREADS={},OMP_PLACES={},OMP_PROC_BIND=close {}", env.threads,
                      env.places, program);
  return line;
}

}  // namespace

std::string cpu_mask_hex(const std::vector<int>& cpus) {
  int top = -1;
  for (int c : cpus) top = std::max(top, c);
  if (top < 0) return "0x0";
  std::vector<unsigned> nibbles(static_cast<std::size_t>(top / 4 + 1), 0u);
  for (int c : cpus)
    if (c >= 0) nibbles[static_cast<std::size_t>(c / 4)] |= 1u << (c % 4);
  std::string hex = "0x";
  for (auto it = nibbles.rbegin(); it != nibbles.rend(); ++it) hex += "0123456789abcdef"[*it];
  return hex;
}

std::vector<std::string> run_settings_words(const PlacementPlan& plan) {
  const PlacementRequest& req = plan.request;
  // The run plans with as many ranks per node as the launcher started, so only these need saying.
  std::vector<std::string> settings = {fmt::format("placement.layout={}", to_string(req.layout)),
                                       fmt::format("run.threads={}", plan.threads_per_rank)};
  if (req.reserve.kind != ReservedCores::Kind::none)
    settings.push_back(fmt::format("placement.reserve={}", req.reserve.to_string()));
  if (req.use_smt) settings.emplace_back("placement.smt=true");
  if (req.progress_thread) {
    // wave3d starts a progress thread only for an overlapped halo with the thread engine.
    settings.emplace_back("parallel.halo=overlap");
    settings.emplace_back("parallel.progress=thread");
  }
  std::vector<std::string> words;
  for (std::string& s : settings) {
    words.emplace_back("--set");
    words.push_back(std::move(s));
  }
  return words;
}

LauncherLines make_launcher_lines(const PlacementPlan& plan, const LauncherOptions& options) {
  if (options.nodes < 1) throw std::invalid_argument(fmt::format("{} nodes: a job needs at least 1", options.nodes));
  LauncherLines lines;
  std::string program = options.program;
  if (options.program == kRunProgram) {
    lines.program_argv = run_settings_words(plan);
    program += fmt::format(" {}", fmt::join(lines.program_argv, " "));
  }
  lines.mpirun = mpirun_line(plan, options, program, lines.notes);
  lines.srun = srun_line(plan, options, program, lines.notes);
  return lines;
}

std::vector<std::string> launcher_words(const std::string& line) {
  std::vector<std::string> words;
  for (std::size_t begin = 0; begin < line.size();) {
    const std::size_t end = std::min(line.find(' ', begin), line.size());
    if (end > begin) words.emplace_back(line, begin, end - begin);
    begin = end + 1;
  }
  return words;
}

}  // namespace wave3d
