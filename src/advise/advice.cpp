#include "advise/advice.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

namespace wave3d::advise {
namespace {

std::vector<const NumaNode*> domains_with_cores(const Topology& topology) {
  std::vector<const NumaNode*> domains;
  for (const NumaNode& n : topology.numa_nodes)
    if (!n.cores.empty()) domains.push_back(&n);
  return domains;
}

void check_fits(const std::optional<Curve>& curve, std::string_view name, const NumaNode& numa,
                const Topology& topology) {
  if (!curve) return;
  const std::string what = fmt::format("{} curve of NUMA node {}", name, numa.index);
  check_curve(*curve, what);
  const int cores = static_cast<int>(numa.cores.size());
  if (curve->points.back().threads > cores)
    throw std::invalid_argument(fmt::format("{} goes to {} threads, but NUMA node {} of {} has {}; allowed: at most "
                                            "{} threads (one per core)",
                                            what, curve->points.back().threads, numa.index, topology.source,
                                            cores_text(cores), cores));
}

DomainAdvice advise_domain(const Topology& topology, const NumaNode& numa, const DomainCurves& curves,
                           double tolerance) {
  if (!curves.triad && !curves.stencil)
    throw std::invalid_argument(fmt::format("NUMA node {} has neither a triad nor a stencil curve; give at least one",
                                            numa.index));
  check_fits(curves.triad, "triad", numa, topology);
  check_fits(curves.stencil, "stencil", numa, topology);

  DomainAdvice a;
  a.numa = numa.index;
  a.os_index = numa.os_index;
  a.cores = numa.cores;
  a.curves = curves;
  a.curves.numa = numa.index;
  if (curves.triad) a.triad = find_saturation(*curves.triad, tolerance);
  if (curves.stencil) a.stencil = find_saturation(*curves.stencil, tolerance);
  a.basis = curves.stencil ? "stencil" : "triad";
  if (!curves.stencil)
    a.notes.push_back("no stencil curve: the compute cores follow the triad curve (memory bandwidth) alone");

  for (const auto& [name, c, s] : {std::tuple{"triad", &curves.triad, &a.triad}, std::tuple{"stencil", &curves.stencil, &a.stencil}}) {
    if (!*c) continue;
    const CurvePoint& end = (*c)->points.back();
    if (end.value < (1.0 - tolerance) * (*s)->best_value)
      a.notes.push_back(fmt::format("the {} curve falls to {:.0f} % of its best at {} threads: more threads are slower "
                                    "here (contention, or other processes on these cores)",
                                    name, 100.0 * end.value / (*s)->best_value, end.threads));
  }
  const Curve& curve = curves.stencil ? *curves.stencil : *curves.triad;
  const Saturation& sat = a.deciding();
  const int ncores = static_cast<int>(a.cores.size());
  const int last = curve.points.back().threads;
  a.compute_cores = sat.threads;
  if (last < ncores) {
    if (sat.threads == last) {
      // Still rising at its end: nothing shows that the untested cores would not help.
      a.compute_cores = ncores;
      a.notes.push_back(fmt::format("the {} curve still rises at its last point ({} threads) and stops short of the "
                                    "domain's {}: no saturation seen, so every core computes",
                                    a.basis, last, cores_text(ncores)));
    } else {
      a.notes.push_back(fmt::format("the {} curve stops at {} threads of {}; it is flat from {} threads on, so the "
                                    "untested cores are taken to add nothing",
                                    a.basis, last, cores_text(ncores), sat.threads));
    }
  }
  a.compute.assign(a.cores.begin(), a.cores.begin() + a.compute_cores);
  if (const auto v = value_at(curve, a.compute_cores)) a.compute_fraction_of_best = *v / sat.best_value;
  if (a.compute_cores < ncores) {
    a.progress_core = a.cores[static_cast<std::size_t>(a.compute_cores)];
    a.daemon_cores.assign(a.cores.begin() + a.compute_cores + 1, a.cores.end());
  } else if (ncores >= 2) {
    if (const auto fewer = value_at(curve, ncores - 1)) a.cost_of_one_core = 1.0 - *fewer / sat.best_value;
  }
  return a;
}

bool numa_nodes_are_sockets(const Topology& topology) {
  const std::vector<const NumaNode*> domains = domains_with_cores(topology);
  if (domains.size() != topology.packages.size()) return false;
  return std::all_of(domains.begin(), domains.end(), [&](const NumaNode* n) {
    return n->package >= 0 && topology.packages[static_cast<std::size_t>(n->package)].cores == n->cores;
  });
}

}  // namespace

std::string cores_text(int n) { return fmt::format("{} {}", n, n == 1 ? "core" : "cores"); }

std::string reserve_spelling(const Topology& topology, const std::vector<int>& reserved) {
  if (reserved.empty()) return "none";
  if (numa_nodes_are_sockets(topology)) {
    // per-socket:N reserves the N highest-numbered cores of every socket.
    const std::size_t n = static_cast<std::size_t>(
        std::count_if(reserved.begin(), reserved.end(), [&](int c) {
          return topology.cores[static_cast<std::size_t>(c)].package == 0;
        }));
    std::vector<int> per_socket;
    for (const Package& p : topology.packages)
      if (n < p.cores.size()) per_socket.insert(per_socket.end(), p.cores.end() - static_cast<std::ptrdiff_t>(n), p.cores.end());
    std::sort(per_socket.begin(), per_socket.end());
    if (n > 0 && per_socket == reserved) return fmt::format("per-socket:{}", n);
  }
  return fmt::format("list:{}", fmt::join(reserved, ","));
}

NodeAdvice advise_node(const Topology& topology, const std::vector<DomainCurves>& curves, double tolerance) {
  check_tolerance(tolerance);
  const std::vector<const NumaNode*> domains = domains_with_cores(topology);
  if (domains.empty()) throw std::invalid_argument(fmt::format("{} has no NUMA node with cores", topology.source));
  if (curves.size() != 1 && curves.size() != domains.size())
    throw std::invalid_argument(fmt::format("curves for {} NUMA domains, but {} has {} NUMA nodes with cores; allowed: "
                                            "curves for 1 domain (applied to every NUMA node) or for all {}",
                                            curves.size(), topology.source, domains.size(), domains.size()));
  NodeAdvice node;
  node.topology_source = topology.source;
  node.tolerance = tolerance;
  const bool shared = curves.size() == 1 && domains.size() > 1;
  node.shared_curves = shared;
  for (std::size_t i = 0; i < domains.size(); ++i) {
    const DomainCurves& c = shared ? curves.front() : curves[i];
    if (!shared && c.numa && *c.numa != domains[i]->index)
      throw std::invalid_argument(fmt::format("the curves at position {} are for NUMA node {}, but position {} is NUMA "
                                              "node {} of {}; list the domains in NUMA node order",
                                              i, *c.numa, i, domains[i]->index, topology.source));
    node.domains.push_back(advise_domain(topology, *domains[i], c, tolerance));
  }
  if (shared)
    node.notes.push_back(fmt::format("the curves of one NUMA domain are applied to all {} NUMA nodes", domains.size()));

  // One rank per NUMA domain with the same thread count everywhere: the largest any domain needs, so no
  // domain computes below its saturation point.
  int need = 0;
  std::size_t smallest = domains.front()->cores.size();
  for (const DomainAdvice& d : node.domains) {
    need = std::max(need, d.compute_cores);
    smallest = std::min(smallest, d.cores.size());
  }
  const bool uneven = std::any_of(node.domains.begin(), node.domains.end(),
                                  [&](const DomainAdvice& d) { return d.compute_cores != need; });
  if (uneven)
    node.notes.push_back(fmt::format("the NUMA domains saturate at different thread counts; every rank gets {} threads, "
                                     "the most any domain needs",
                                     need));
  if (static_cast<std::size_t>(need) > smallest) {
    node.notes.push_back(fmt::format("the smallest NUMA domain has {}: {} threads per rank", cores_text(static_cast<int>(smallest)),
                                     smallest));
    need = static_cast<int>(smallest);
  }
  node.threads_per_rank = need;
  node.compute_cores = need * static_cast<int>(domains.size());
  node.surplus_cores = static_cast<int>(topology.cores.size()) - node.compute_cores;

  std::vector<int> reserved;
  bool every_domain_has_spare = true;
  for (const NumaNode* n : domains) {
    reserved.insert(reserved.end(), n->cores.begin() + need, n->cores.end());
    every_domain_has_spare = every_domain_has_spare && n->cores.size() > static_cast<std::size_t>(need);
  }
  std::sort(reserved.begin(), reserved.end());
  node.reserve = reserve_spelling(topology, reserved);
  node.request.layout = Layout::rank_per_numa;
  node.request.threads_per_rank = need;
  node.request.reserve = ReservedCores::parse(node.reserve);
  node.request.progress_thread = every_domain_has_spare;
  if (!reserved.empty() && !every_domain_has_spare)
    node.notes.push_back("not every NUMA domain has a surplus core: no progress thread in the plan; the reserved cores "
                         "are left to daemons");

  node.run_program = "wave3d run --set placement.layout=rank-per-numa";
  if (!reserved.empty()) node.run_program += " --set placement.reserve=" + node.reserve;
  if (node.request.progress_thread) node.run_program += " --set parallel.halo=overlap --set parallel.progress=thread";
  return node;
}

}  // namespace wave3d::advise
