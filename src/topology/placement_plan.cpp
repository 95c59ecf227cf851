#include "topology/placement_plan.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace wave3d {
namespace {

// One domain the ranks are spread over: a socket, a NUMA node or the node.
struct Domain {
  int index = 0;             // topology index (socket / NUMA node), 0 for the node
  std::string name;          // "socket 0", "NUMA node 3", "the node"
  std::vector<int> cores;    // all its cores, ascending
  std::vector<int> compute;  // cores not reserved
  std::vector<int> reserved;
};

std::string count_of(long long n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "a", "a or b", "a, b or c".
std::string either(const std::vector<std::string>& options) {
  std::string s;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (i > 0) s += i + 1 == options.size() ? " or " : ", ";
    s += options[i];
  }
  return s;
}

DomainKind domain_kind_of(Layout layout) {
  switch (layout) {
    case Layout::rank_per_node: return DomainKind::node;
    case Layout::rank_per_numa: return DomainKind::numa;
    case Layout::rank_per_socket:
    case Layout::rank_per_core: return DomainKind::socket;
  }
  return DomainKind::socket;
}

std::string_view plural(DomainKind kind) {
  switch (kind) {
    case DomainKind::node: return "nodes";
    case DomainKind::socket: return "sockets";
    case DomainKind::numa: return "NUMA nodes";
  }
  return "?";
}

std::vector<Domain> make_domains(const Topology& topo, DomainKind kind, const std::vector<bool>& is_reserved) {
  std::vector<Domain> domains;
  switch (kind) {
    case DomainKind::node: {
      Domain d{.index = 0, .name = "the node", .cores = {}, .compute = {}, .reserved = {}};
      for (const Core& c : topo.cores) d.cores.push_back(c.index);
      domains.push_back(std::move(d));
      break;
    }
    case DomainKind::socket:
      for (const Package& p : topo.packages)
        domains.push_back(Domain{.index = p.index, .name = fmt::format("socket {}", p.index), .cores = p.cores,
                                 .compute = {}, .reserved = {}});
      break;
    case DomainKind::numa:
      // NUMA nodes without cores (HBM, CXL memory) hold data, never ranks.
      for (const NumaNode& n : topo.numa_nodes)
        if (!n.cores.empty())
          domains.push_back(Domain{.index = n.index, .name = fmt::format("NUMA node {}", n.index), .cores = n.cores,
                                   .compute = {}, .reserved = {}});
      if (domains.empty())
        throw PlacementError("rank-per-numa needs NUMA nodes with cores and this topology reports none; "
                             "use rank-per-socket");
      break;
  }
  for (Domain& d : domains)
    for (int c : d.cores) (is_reserved[static_cast<std::size_t>(c)] ? d.reserved : d.compute).push_back(c);
  return domains;
}

void require_compute_cores(const Topology& topo, const ReservedCores& reserve, const std::vector<Domain>& domains) {
  for (const Domain& d : domains) {
    if (!d.compute.empty()) continue;
    std::string fix;
    if (reserve.kind == ReservedCores::Kind::per_node) {
      int fits = reserve.count - 1;
      for (; fits > 0; --fits) {
        const std::vector<int> r = slurm_core_spec_cores(topo, fits);
        const bool ok = std::all_of(domains.begin(), domains.end(), [&](const Domain& dom) {
          return std::any_of(dom.cores.begin(), dom.cores.end(),
                             [&](int c) { return !std::binary_search(r.begin(), r.end(), c); });
        });
        if (ok) break;
      }
      fix = fmt::format("reserve at most {} per node", fits);
    } else {
      fix = fmt::format("keep at least one core of {} out of the reserved list", d.name);
    }
    throw PlacementError(
        fmt::format("reserving {} leaves {} without compute cores; {}", describe(reserve), d.name, fix));
  }
}

// Ranks on each domain; validates the rank count against the domains and their compute cores.
int ranks_per_domain(const PlacementRequest& req, DomainKind kind, const std::vector<Domain>& domains,
                     const Domain& smallest) {
  const int ndomains = static_cast<int>(domains.size());
  const int fit = static_cast<int>(smallest.compute.size());  // at most one rank per compute core
  if (req.ranks_per_node == 0) return req.layout == Layout::rank_per_core ? fit : 1;
  const int r = req.ranks_per_node;
  if (r % ndomains != 0) {
    std::vector<std::string> options;
    if (r / ndomains > 0) options.push_back(fmt::format("{}", r / ndomains * ndomains));
    if (r / ndomains + 1 <= fit) options.push_back(fmt::format("{}", (r / ndomains + 1) * ndomains));
    throw PlacementError(fmt::format("{} with {} ranks per node does not divide over {} {}; use {} ranks per node",
                                     to_string(req.layout), r, ndomains, plural(kind), either(options)));
  }
  const int k = r / ndomains;
  if (k > fit) {
    const std::string after =
        smallest.reserved.empty() ? "" : fmt::format(" after reserving {}", smallest.reserved.size());
    throw PlacementError(fmt::format("{} with {} ranks per node puts {} ranks on each {} but {} has only {}{}; "
                                     "use at most {} ranks per node",
                                     to_string(req.layout), r, k, to_string(kind), smallest.name,
                                     count_of(fit, "compute core", "compute cores"), after,
                                     fit * ndomains));
  }
  return k;
}

int threads_capacity(const Topology& topo, const std::vector<int>& block, bool smt) {
  if (!smt) return static_cast<int>(block.size());
  int n = 0;
  for (int c : block) n += static_cast<int>(topo.cores[static_cast<std::size_t>(c)].pus.size());
  return n;
}

[[noreturn]] void too_many_threads(const Topology& topo, const PlacementRequest& req, DomainKind kind, int k,
                                   int cores_per_rank, int capacity, const Domain& limiting) {
  const int t = req.threads_per_rank;
  const int ppc = topo.max_pus_per_core();
  const std::string need =
      req.use_smt ? fmt::format("{} with {} hardware threads each", count_of((t + ppc - 1) / ppc, "core", "cores"), ppc)
                  : count_of(t, "core", "cores");
  std::string layout(to_string(req.layout));
  if (k > 1 && req.layout != Layout::rank_per_core) layout += fmt::format(" with {} ranks per {}", k, to_string(kind));
  const std::string_view unit = (k == 1 && req.layout != Layout::rank_per_core) ? to_string(kind) : "rank";
  const std::string after =
      limiting.reserved.empty() ? "" : fmt::format(" after reserving {}", limiting.reserved.size());
  std::vector<std::string> options{
      fmt::format("use at most {}", count_of(capacity, "thread", "threads"))};
  if (!limiting.reserved.empty()) options.emplace_back("reserve fewer cores");
  if (k > 1 && req.layout != Layout::rank_per_core) options.emplace_back("fewer ranks per node");
  if (!req.use_smt && ppc > 1) options.push_back(fmt::format("use SMT ({} hardware threads per core)", ppc));
  throw PlacementError(fmt::format("{} threads per rank need {} but {} leaves {} per {}{}; {}", t, need, layout,
                                   count_of(cores_per_rank, "core", "cores"), unit, after,
                                   either(options)));
}

PlannedRank plan_rank(const Topology& topo, int rank, int domain, const std::vector<int>& block, int threads,
                      bool smt) {
  PlannedRank r;
  r.rank = rank;
  r.domain = domain;
  for (int c : block) {
    if (static_cast<int>(r.threads.size()) == threads) break;
    const Core& core = topo.cores[static_cast<std::size_t>(c)];
    r.cores.push_back(c);
    if (!smt) {
      r.threads.push_back(PlannedThread{.core = c, .pus = core.pus});
      continue;
    }
    // With SMT the threads fill one core's hardware threads before moving on, as OMP_PROC_BIND=close
    // does over OMP_PLACES=threads.
    for (int pu : core.pus) {
      if (static_cast<int>(r.threads.size()) == threads) break;
      r.threads.push_back(PlannedThread{.core = c, .pus = {pu}});
    }
  }
  return r;
}

void place_progress_threads(const Topology& topo, DomainKind kind, int k,
                            const std::vector<Domain>& domains, std::vector<PlannedRank>& ranks) {
  const auto lacking = std::find_if(domains.begin(), domains.end(),
                                    [&](const Domain& d) { return static_cast<int>(d.reserved.size()) < k; });
  if (lacking != domains.end()) {
    std::string why = k == 1 ? fmt::format("progress thread needs a reserved core on every {}", to_string(kind))
                             : fmt::format("progress threads need {} reserved cores on every {} (one per rank)", k,
                                           to_string(kind));
    const bool some_have = std::any_of(domains.begin(), domains.end(),
                                       [&](const Domain& d) { return static_cast<int>(d.reserved.size()) >= k; });
    if (some_have) why += fmt::format(" but {} has {}", lacking->name, lacking->reserved.size());
    std::string fix;
    if (kind == DomainKind::numa) {
      // No per-NUMA reservation kind exists: suggest the list that reserves the highest cores of each.
      std::vector<int> suggestion;
      for (const Domain& d : domains)
        suggestion.insert(suggestion.end(), d.cores.end() - std::min(static_cast<int>(d.cores.size()), k),
                          d.cores.end());
      fix = fmt::format("reserve {} in each NUMA node, e.g. list:{}", k, fmt::join(suggestion, ","));
    } else {
      fix = fmt::format("reserve at least {} per {}", k, to_string(kind));
    }
    throw PlacementError(fmt::format("{}; {}", why, fix));
  }
  std::size_t next = 0;
  for (const Domain& d : domains)
    for (int j = 0; j < k; ++j) {
      PlannedRank& r = ranks[next++];
      r.progress_core = d.reserved[static_cast<std::size_t>(j)];
      r.progress_pus = topo.cores[static_cast<std::size_t>(*r.progress_core)].pus;
    }
}

// A whole-machine topology may hold cores outside the process's CPU set (`outside`): they cannot
// compute, so the plan must reserve them, and cannot put progress threads there.
void require_cpu_set_reserved(const PlacementRequest& req, const std::vector<int>& outside,
                              const std::vector<bool>& is_reserved) {
  for (int c : outside)
    if (!is_reserved[static_cast<std::size_t>(c)])
      throw PlacementError(fmt::format("core {} is outside this process's CPU set, but reserving {} leaves it to "
                                       "compute; reserve the cores outside the CPU set ({})",
                                       c, describe(req.reserve), fmt::join(outside, ",")));
  if (req.progress_thread && !outside.empty())
    throw PlacementError(fmt::format("progress threads need reserved cores the ranks may run on, but cores {} are "
                                     "outside this process's CPU set",
                                     fmt::join(outside, ",")));
}

}  // namespace

std::string_view to_string(DomainKind kind) {
  switch (kind) {
    case DomainKind::node: return "node";
    case DomainKind::socket: return "socket";
    case DomainKind::numa: return "NUMA node";
  }
  return "?";
}

PlacementPlan make_placement_plan(const Topology& topo, const PlacementRequest& req) {
  if (topo.cores.empty()) throw PlacementError(fmt::format("{} has no cores to place ranks on", topo.source));
  if (req.ranks_per_node < 0)
    throw PlacementError(fmt::format("{} ranks per node is not a rank count; use 0 (one per domain) or more",
                                     req.ranks_per_node));
  if (req.threads_per_rank < 0)
    throw PlacementError(fmt::format("{} threads per rank is not a thread count; use 0 (fill the cores) or more",
                                     req.threads_per_rank));

  PlacementPlan plan;
  plan.request = req;
  plan.domain_kind = domain_kind_of(req.layout);
  plan.sockets = static_cast<int>(topo.packages.size());
  plan.node_cores = static_cast<int>(topo.cores.size());
  plan.pus_per_core = topo.max_pus_per_core();
  plan.reserved_cores = choose_reserved_cores(topo, req.reserve);

  std::vector<bool> is_reserved(topo.cores.size(), false);
  for (int c : plan.reserved_cores) is_reserved[static_cast<std::size_t>(c)] = true;
  const std::vector<int> outside = cores_outside_cpu_set(topo);
  require_cpu_set_reserved(req, outside, is_reserved);
  plan.reserved_by_cpu_set = !plan.reserved_cores.empty() && plan.reserved_cores == outside;
  const std::vector<Domain> domains = make_domains(topo, plan.domain_kind, is_reserved);
  require_compute_cores(topo, req.reserve, domains);

  const Domain& smallest = *std::min_element(domains.begin(), domains.end(), [](const Domain& a, const Domain& b) {
    return a.compute.size() < b.compute.size();
  });
  const int k = ranks_per_domain(req, plan.domain_kind, domains, smallest);
  const int block_size = req.layout == Layout::rank_per_core ? 1 : static_cast<int>(smallest.compute.size()) / k;

  // What a rank could hold: an equal share (block) of its domain's compute cores. The smallest share
  // over all domains bounds the threads per rank.
  int capacity = std::numeric_limits<int>::max();
  const Domain* limiting = &smallest;
  for (const Domain& d : domains)
    for (int j = 0; j < k; ++j) {
      const auto first = d.compute.begin() + static_cast<std::ptrdiff_t>(j) * block_size;
      const int cap = threads_capacity(topo, std::vector<int>(first, first + block_size), req.use_smt);
      if (cap < capacity) {
        capacity = cap;
        limiting = &d;
      }
    }
  if (req.threads_per_rank > capacity)
    too_many_threads(topo, req, plan.domain_kind, k, block_size, capacity, *limiting);
  const int threads = req.threads_per_rank > 0 ? req.threads_per_rank : capacity;

  // Ranks take the cores their threads need one after the other from the start of the domain, as
  // Open MPI's ppr mapping and Slurm's block distribution do; cores left over sit at the domain's end.
  for (const Domain& d : domains) {
    std::size_t next = 0;
    for (int j = 0; j < k; ++j) {
      const std::vector<int> rest(d.compute.begin() + static_cast<std::ptrdiff_t>(next), d.compute.end());
      PlannedRank r = plan_rank(topo, static_cast<int>(plan.ranks.size()), d.index, rest, threads, req.use_smt);
      if (static_cast<int>(r.threads.size()) < threads)  // only cores with unequal hardware threads get here
        throw PlacementError(fmt::format("{} threads per rank do not fit on the compute cores of {}; use fewer threads",
                                         threads, d.name));
      next += r.cores.size();
      plan.cores_per_rank = std::max(plan.cores_per_rank, static_cast<int>(r.cores.size()));
      plan.ranks.push_back(std::move(r));
    }
  }
  if (req.progress_thread) place_progress_threads(topo, plan.domain_kind, k, domains, plan.ranks);

  plan.ranks_per_domain = k;
  plan.ranks_per_node = k * static_cast<int>(domains.size());
  plan.threads_per_rank = threads;

  const std::size_t ndomain_slots =
      plan.domain_kind == DomainKind::node ? 1
      : plan.domain_kind == DomainKind::socket ? topo.packages.size()
                                                : topo.numa_nodes.size();
  plan.domain_cores.resize(ndomain_slots);
  for (const Domain& d : domains) plan.domain_cores[static_cast<std::size_t>(d.index)] = d.cores;

  for (int c : plan.reserved_cores) {
    const bool used = std::any_of(plan.ranks.begin(), plan.ranks.end(),
                                  [c](const PlannedRank& r) { return r.progress_core == c; });
    if (!used) plan.idle_reserved_cores.push_back(c);
  }
  plan.reserved_follow_core_spec =
      plan.reserved_cores.empty() ||
      plan.reserved_cores == slurm_core_spec_cores(topo, static_cast<int>(plan.reserved_cores.size()));
  return plan;
}

}  // namespace wave3d
