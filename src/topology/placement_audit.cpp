#include "topology/placement_audit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "runtime/cpu_list.hpp"

namespace wave3d {
namespace {

// A thread together with the rank it belongs to.
struct ThreadRef {
  const SeenRank* rank = nullptr;
  const SeenThread* thread = nullptr;
};

std::string thread_name(const ThreadRef& t) {
  if (t.thread->progress) return fmt::format("rank {} progress thread", t.rank->rank);
  return fmt::format("rank {} thread {}", t.rank->rank, t.thread->thread);
}

// "a, b, c and 4 more": messages stay one line on a node of hundreds of threads.
std::string join_names(const std::vector<std::string>& names, std::size_t shown = 6) {
  std::string s;
  for (std::size_t i = 0; i < std::min(names.size(), shown); ++i) s += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > shown) s += fmt::format(" and {} more", names.size() - shown);
  return s;
}

std::string ranks_text(const std::vector<int>& ranks) {
  return fmt::format("rank{} {}", ranks.size() > 1 ? "s" : "", format_cpu_list(ranks));
}

std::string cpus_text(const std::vector<int>& cpus) {
  return fmt::format("CPU{} {}", cpus.size() > 1 ? "s" : "", format_cpu_list(cpus));
}

bool binds(const SeenRank& rank) { return rank.proc_bind != "false" && rank.num_places > 0; }

std::set<int> cores_of(const NodeCpus& node, const std::vector<int>& pus) {
  std::set<int> cores;
  for (int pu : pus) {
    const bool known = pu >= 0 && static_cast<std::size_t>(pu) < node.core_of_pu.size() &&
                       node.core_of_pu[static_cast<std::size_t>(pu)] >= 0;
    cores.insert(known ? node.core_of_pu[static_cast<std::size_t>(pu)] : -1 - pu);  // unknown: a core of its own
  }
  return cores;
}

bool floats(const NodeCpus& node, const SeenThread& t) { return cores_of(node, t.allowed).size() > 1; }

bool contains_all(const std::vector<int>& outer, const std::vector<int>& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

std::vector<int> ranks_of(const std::vector<ThreadRef>& threads) {
  std::set<int> ranks;
  for (const ThreadRef& t : threads) ranks.insert(t.rank->rank);
  return {ranks.begin(), ranks.end()};
}

class NodeAudit {
 public:
  NodeAudit(const NodeCpus& node, const std::vector<SeenRank>& ranks) : node_(node), ranks_(ranks) {
    host_ = ranks.empty() ? std::string() : ranks.front().host;
    for (const SeenRank& r : ranks)
      for (const SeenThread& t : r.threads) threads_.push_back({&r, &t});
  }

  std::vector<PlacementProblem> run() {
    check_sharing();
    check_oversubscription();
    check_floating();
    check_plan();
    check_work();
    return std::move(problems_);
  }

 private:
  void add(std::string kind, std::string cause, std::vector<int> ranks, std::string message) {
    problems_.push_back({std::move(kind), std::move(cause), host_, std::move(ranks), std::move(message)});
  }

  void check_oversubscription() {
    const std::size_t cpus = node_.allowed.size();
    if (threads_.size() <= cpus || cpus == 0) return;
    const std::vector<int> ranks = ranks_of(threads_);
    const std::string counted = fmt::format("{} threads ({} rank{} with their compute and progress threads) on {}",
                                            threads_.size(), ranks_.size(), ranks_.size() > 1 ? "s" : "",
                                            host_);
    if (static_cast<int>(cpus) < node_.machine_pus && static_cast<int>(threads_.size()) <= node_.machine_pus) {
      add("oversubscribed", "cgroup", ranks,
          fmt::format("{} take turns on the {} {} the job's cpuset / cgroup allows of the machine's {}: ask the "
                      "scheduler for more CPUs per node (or start fewer ranks or threads)",
                      counted, cpus, cpus_text(node_.allowed), node_.machine_pus));
      return;
    }
    add("oversubscribed", "launcher", ranks,
        fmt::format("{} take turns on its {} {}: start fewer ranks or threads per node (wave3d plan prints lines "
                    "that fit)",
                    counted, cpus, cpus_text(node_.allowed)));
  }

  // Threads bound to one core each, counted on every PU they may use (a thread on a 2-PU core counts
  // half on each): a PU loaded over 1 makes its threads take turns.
  void check_sharing() {
    std::map<int, double> load;
    std::set<int> reachable;  // PUs some thread may run on
    for (const ThreadRef& t : threads_) {
      reachable.insert(t.thread->allowed.begin(), t.thread->allowed.end());
      if (floats(node_, *t.thread) || t.thread->allowed.empty()) continue;
      for (int pu : t.thread->allowed) load[pu] += 1.0 / static_cast<double>(t.thread->allowed.size());
    }
    std::vector<int> idle;
    for (int pu : node_.allowed)
      if (!reachable.count(pu)) idle.push_back(pu);
    if (idle.empty()) return;

    // The crowded threads, grouped by the CPU set they are bound to.
    std::map<std::vector<int>, std::vector<ThreadRef>> crowded;
    for (const ThreadRef& t : threads_) {
      if (floats(node_, *t.thread)) continue;
      const bool over = std::any_of(t.thread->allowed.begin(), t.thread->allowed.end(),
                                    [&](int pu) { return load[pu] > 1.0 + 1e-9; });
      if (over) crowded[t.thread->allowed].push_back(t);
    }
    // One problem per cause, naming each shared CPU set and its threads.
    std::map<std::string, std::vector<std::string>> groups_by_cause;
    std::map<std::string, std::set<int>> ranks_by_cause;
    for (const auto& [cpus, threads] : crowded) {
      std::vector<std::string> names;
      for (const ThreadRef& t : threads) names.push_back(thread_name(t));
      const std::string cause = sharing_cause(cpus, threads);
      groups_by_cause[cause].push_back(fmt::format("{} share {}", join_names(names), cpus_text(cpus)));
      for (int r : ranks_of(threads)) ranks_by_cause[cause].insert(r);
    }
    for (const auto& [cause, groups] : groups_by_cause) {
      const std::vector<int> ranks(ranks_by_cause[cause].begin(), ranks_by_cause[cause].end());
      add("shared-cpus", cause, ranks,
          fmt::format("on {}: {}, while {} of the node stay{} idle; {}", host_, join_names(groups, 4),
                      cpus_text(idle), idle.size() > 1 ? "" : "s", sharing_advice(cause, ranks)));
    }
  }

  std::string sharing_cause(const std::vector<int>& cpus, const std::vector<ThreadRef>& threads) const {
    if (std::any_of(threads.begin(), threads.end(), [](const ThreadRef& t) { return t.thread->progress; }) &&
        std::any_of(threads.begin(), threads.end(), [](const ThreadRef& t) { return !t.thread->progress; }))
      return "progress-core";
    if (std::all_of(threads.begin(), threads.end(), [](const ThreadRef& t) { return t.rank->planned; })) return "plan";
    // The launcher confined a rank to fewer CPUs than it has threads, or put several ranks on one set.
    const bool confined = std::all_of(threads.begin(), threads.end(), [&](const ThreadRef& t) {
      const std::vector<int>& launch = t.rank->launch_cpus;
      return !launch.empty() && launch.size() < node_.allowed.size() && contains_all(launch, cpus);
    });
    if (confined) return "launcher";
    return std::all_of(threads.begin(), threads.end(), [](const ThreadRef& t) { return binds(*t.rank); })
               ? "openmp"
               : "launcher";
  }

  std::string sharing_advice(const std::string& cause, const std::vector<int>& ranks) const {
    if (cause == "launcher") {
      const SeenRank& r = rank_by_number(ranks.front());
      return fmt::format(
          "the launcher bound rank {} to {} for its {} thread{} (Open MPI binds each rank to one core by default when "
          "it starts 1 or 2 ranks): give each rank as many cores as threads (mpirun --map-by ppr:N:socket:PE=<threads> "
          "--bind-to core, srun --cpus-per-task=<threads>; wave3d plan prints the lines)",
          r.rank, cpus_text(r.launch_cpus), r.compute_threads(), r.compute_threads() > 1 ? "s" : "");
    }
    if (cause == "openmp")
      return "the launcher left every rank the whole node (--bind-to none) and each rank's OpenMP runtime "
             "(OMP_PROC_BIND with OMP_PLACES) binds its threads from the node's first place on, so the ranks pile up "
             "there: bind the ranks in the launcher (mpirun --map-by core --bind-to core, or the line wave3d plan "
             "prints) or let wave3d bind them (placement.layout)";
    if (cause == "progress-core")
      return "the progress thread was bound to a compute thread's CPU (parallel.progress_core): give it a reserved "
             "core (placement.reserve with placement.layout)";
    return "wave3d's placement plan put them there; compare with wave3d plan";
  }

  void check_floating() {
    std::map<std::string, std::vector<std::string>> by_cause;
    std::map<std::string, std::set<int>> ranks_by_cause;
    std::map<std::string, std::size_t> threads_by_cause;
    for (const SeenRank& r : ranks_) {
      std::vector<int> compute;  // floating compute thread numbers of this rank
      std::vector<int> cpus;
      for (const SeenThread& t : r.threads) {
        if (!floats(node_, t)) continue;
        if (t.progress) {
          by_cause["unbound"].push_back(fmt::format("rank {} progress thread (may run on {})", r.rank,
                                                    cpus_text(t.allowed)));
          ranks_by_cause["unbound"].insert(r.rank);
          ++threads_by_cause["unbound"];
          continue;
        }
        compute.push_back(t.thread);
        cpus.insert(cpus.end(), t.allowed.begin(), t.allowed.end());
      }
      if (compute.empty()) continue;
      const std::string cause = binds(r) ? "openmp" : "unbound";
      by_cause[cause].push_back(fmt::format("rank {} thread{} {} (may run on {})", r.rank, compute.size() > 1 ? "s" : "",
                                            format_cpu_list(compute), cpus_text(cpus)));
      ranks_by_cause[cause].insert(r.rank);
      threads_by_cause[cause] += compute.size();
    }
    for (const auto& [cause, names] : by_cause) {
      const std::string why =
          cause == "openmp"
              ? "their OpenMP place spans several cores (OMP_PLACES): use OMP_PLACES=cores (or threads with SMT)"
              : "nothing binds them (OMP_PROC_BIND unset or false, the launcher did not bind, or "
                "parallel.progress_core = -1): set OMP_PROC_BIND=close OMP_PLACES=cores with a launcher binding per "
                "rank, or let wave3d bind them (placement.layout)";
      add("floating", cause, {ranks_by_cause[cause].begin(), ranks_by_cause[cause].end()},
          fmt::format("on {}: {} float{} over several cores, so the scheduler may move them during the measurement; {}",
                      host_, join_names(names, 4), threads_by_cause[cause] > 1 ? "" : "s", why));
    }
  }

  void check_plan() {
    std::vector<std::string> off;
    std::set<int> ranks;
    for (const ThreadRef& t : threads_) {
      if (!t.rank->planned) continue;
      const SeenThread& th = *t.thread;
      const bool in_plan = !th.planned.empty();
      const bool ok = in_plan && th.allowed == th.planned && th.cpu &&
                      std::binary_search(th.planned.begin(), th.planned.end(), *th.cpu);
      if (ok) continue;
      ranks.insert(t.rank->rank);
      const std::string ran = th.cpu ? std::to_string(*th.cpu) : std::string("?");
      off.push_back(in_plan ? fmt::format("{} was planned on {} but may run on {} and ran on CPU {}", thread_name(t),
                                          cpus_text(th.planned), cpus_text(th.allowed), ran)
                            : fmt::format("{} is not in the plan (it runs on CPU {})", thread_name(t), ran));
    }
    if (off.empty()) return;
    add("off-plan", "plan", {ranks.begin(), ranks.end()},
        fmt::format("on {}: {}: the placement plan's binding did not hold (wave3d plan shows the plan)", host_,
                    join_names(off, 4)));
  }

  void check_work() {
    std::map<std::pair<long long, int>, std::vector<int>> starved;  // (blocks, threads) -> ranks
    for (const SeenRank& r : ranks_)
      if (r.work_blocks && *r.work_blocks < r.compute_threads())
        starved[{*r.work_blocks, r.compute_threads()}].push_back(r.rank);
    for (const auto& [shape, ranks] : starved) {
      const auto [blocks, threads] = shape;
      add("no-work", "blocking", ranks,
          fmt::format("on {}: {} {} only {} cache block{} for {} threads, so {} thread{} per rank {} no work: use "
                      "smaller blocks (blocking.size; 0 means a whole axis)",
                      host_, ranks_text(ranks), ranks.size() > 1 ? "have" : "has", blocks, blocks == 1 ? "" : "s",
                      threads, threads - blocks, threads - blocks == 1 ? "" : "s",
                      threads - blocks == 1 ? "has" : "have"));
    }
  }

  const SeenRank& rank_by_number(int rank) const {
    return *std::find_if(ranks_.begin(), ranks_.end(), [&](const SeenRank& r) { return r.rank == rank; });
  }

  const NodeCpus& node_;
  const std::vector<SeenRank>& ranks_;
  std::string host_;
  std::vector<ThreadRef> threads_;
  std::vector<PlacementProblem> problems_;
};

}  // namespace

int SeenRank::compute_threads() const {
  return static_cast<int>(std::count_if(threads.begin(), threads.end(), [](const SeenThread& t) { return !t.progress; }));
}

NodeCpus node_cpus_of(const Topology& topology) {
  NodeCpus node;
  node.allowed = topology.allowed_pus;
  node.machine_pus = topology.machine_pus;
  for (const Core& core : topology.cores)
    for (int pu : core.pus) {
      if (pu < 0) continue;
      if (static_cast<std::size_t>(pu) >= node.core_of_pu.size()) node.core_of_pu.resize(static_cast<std::size_t>(pu) + 1, -1);
      node.core_of_pu[static_cast<std::size_t>(pu)] = core.index;
    }
  return node;
}

std::vector<PlacementProblem> audit_node(const NodeCpus& node, const std::vector<SeenRank>& ranks) {
  return NodeAudit(node, ranks).run();
}

}  // namespace wave3d
