#pragma once
// From the scaling curves of each NUMA domain to a recommendation: how many cores of the domain compute,
// how many are surplus, what goes on the surplus cores (a communication progress thread, then daemons),
// and one placement request for the whole node that `wave3d plan` and `wave3d run` understand.
// Pure: plain values in, plain values out; the topology may be any machine, not only this one.
#include <optional>
#include <string>
#include <vector>

#include "advise/curve.hpp"
#include "topology/placement_request.hpp"
#include "topology/topology.hpp"

namespace wave3d::advise {

// The curves measured (or given) for one NUMA domain. At least one of them must be present; the
// stencil curve decides the compute cores when present, the triad curve otherwise.
struct DomainCurves {
  std::optional<int> numa;  // the topology's logical NUMA node index, when known
  std::optional<Curve> triad;    // STREAM triad, GB/s
  std::optional<Curve> stencil;  // the wave stencil, MPoints/s
};

struct DomainAdvice {
  int numa = 0;      // logical index into Topology::numa_nodes
  int os_index = -1;  // what numactl and mbind call it
  std::vector<int> cores;  // the domain's logical core indices, ascending
  DomainCurves curves;
  std::optional<Saturation> triad;
  std::optional<Saturation> stencil;
  std::string basis;  // "stencil" or "triad": the curve that decided compute_cores
  int compute_cores = 0;
  std::vector<int> compute;        // the lowest-numbered compute_cores cores of the domain
  // The deciding curve's value on the compute cores as a share of its best; nullopt when the curve has
  // no point at compute_cores (it stops short of the domain's cores).
  std::optional<double> compute_fraction_of_best;
  std::optional<int> progress_core;  // the first surplus core
  std::vector<int> daemon_cores;     // the other surplus cores
  // With no surplus and at least 2 cores: the share of the deciding curve's best value given up by
  // computing on one core fewer (to make room for a progress thread or daemons); nullopt when the
  // curve has no point at cores - 1.
  std::optional<double> cost_of_one_core;
  std::vector<std::string> notes;  // e.g. the curve stops short of the domain's cores

  int surplus_cores() const { return static_cast<int>(cores.size()) - compute_cores; }
  const Saturation& deciding() const { return basis == "stencil" ? *stencil : *triad; }
};

struct NodeAdvice {
  std::string topology_source;  // Topology::source
  double tolerance = default_tolerance;
  std::vector<DomainAdvice> domains;  // every NUMA node with cores, in logical order
  bool shared_curves = false;         // one domain's curves were applied to every domain
  // The plan for the node: one rank per NUMA domain, threads_per_rank compute threads each, the rest of
  // each domain reserved; the progress thread on a reserved core of its domain when every domain has one.
  int threads_per_rank = 0;
  int compute_cores = 0;  // threads_per_rank x domains
  int surplus_cores = 0;  // node cores - compute_cores
  PlacementRequest request;
  std::string reserve;  // request.reserve as placement.reserve / --reserve spell it
  // What the launcher should start: `wave3d run` with the settings that make it bind as planned.
  std::string run_program;
  std::vector<std::string> notes;
};

// Throws std::invalid_argument for curves that do not fit the topology: a count of domains other than 1
// (applied to every domain) or the number of NUMA nodes with cores, a domain with neither curve, a curve
// with more threads than its domain has cores, or a bad curve or tolerance (see curve.hpp).
NodeAdvice advise_node(const Topology& topology, const std::vector<DomainCurves>& curves, double tolerance);

// The placement.reserve spelling that reserves `reserved` (logical cores, ascending) on `topology`:
// "none", "per-socket:N" when every NUMA node is a whole socket and each socket gives up its N
// highest-numbered cores, otherwise "list:i,j,...".
std::string reserve_spelling(const Topology& topology, const std::vector<int>& reserved);

// "1 core", "3 cores": a count of cores as the advice's sentences write it.
std::string cores_text(int n);

}  // namespace wave3d::advise
