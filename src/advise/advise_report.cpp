#include "advise/advise_report.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "runtime/cpu_list.hpp"

namespace wave3d::advise {
namespace {

std::string threads_text(int n) { return fmt::format("{} {}", n, n == 1 ? "thread" : "threads"); }

// "core 3" / "cores 2-3".
std::string core_set(const std::vector<int>& cores) {
  return fmt::format("{} {}", cores.size() == 1 ? "core" : "cores", format_cpu_list(cores));
}

std::string percent(double fraction) { return fmt::format("{:.1f} %", 100.0 * fraction); }

// Enough significant digits for throughputs from 0.01 to 100000.
std::string value_text(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

std::string cell(const std::optional<Curve>& curve, const std::optional<Saturation>& sat, int threads) {
  if (!curve) return fmt::format("{:>12} {:>9}", "", "");
  const std::optional<double> v = value_at(*curve, threads);
  if (!v) return fmt::format("{:>12} {:>9}", "-", "");
  const std::string mark = sat->threads == threads ? " <" : "  ";
  return fmt::format("{:>12} {:>7.3f}{}", value_text(*v), *v / sat->best_value, mark);
}

std::string saturation_line(std::string_view name, const Saturation& s, std::string_view unit) {
  return fmt::format("{} saturates at {} ({} {}, {} of the best, {} at {})", name, threads_text(s.threads),
                     value_text(s.value), unit, percent(s.fraction_of_best), value_text(s.best_value),
                     threads_text(s.best_threads));
}

}  // namespace

std::string render_curve_table(const DomainAdvice& d, double tolerance) {
  std::set<int> threads;
  for (const auto* curve : {&d.curves.triad, &d.curves.stencil})
    if (*curve)
      for (const CurvePoint& p : (*curve)->points) threads.insert(p.threads);
  const std::string triad_unit = d.curves.triad ? d.curves.triad->unit : "";
  const std::string stencil_unit = d.curves.stencil ? d.curves.stencil->unit : "";
  std::string s = fmt::format("{:>7} {:>12} {:>9} {:>12} {:>9}\n", "threads", "triad", "of best", "stencil", "of best");
  s += fmt::format("{:>7} {:>12} {:>9} {:>12} {:>9}\n", "", triad_unit, "", stencil_unit, "");
  for (int t : threads)
    s += fmt::format("{:>7} {} {}\n", t, cell(d.curves.triad, d.triad, t), cell(d.curves.stencil, d.stencil, t));
  s += fmt::format("{:>7} < the saturation point: the fewest threads within {} of the curve's best\n", "",
                   percent(tolerance));
  return s;
}

std::string describe_domain_advice(const DomainAdvice& d, double tolerance) {
  std::string s;
  if (d.triad) s += "  " + saturation_line("triad", *d.triad, d.curves.triad->unit) + "\n";
  if (d.stencil) s += "  " + saturation_line("stencil", *d.stencil, d.curves.stencil->unit) + "\n";
  if (d.triad && d.stencil) {
    // A curve that drops with more threads was disturbed (or contended): what it says is less certain.
    const auto falls = [&](const Curve& c, const Saturation& sat) {
      return c.points.back().value < (1.0 - tolerance) * sat.best_value;
    };
    const std::string hedge = falls(*d.curves.triad, *d.triad) || falls(*d.curves.stencil, *d.stencil)
                                  ? " (as far as curves that fall with more threads can tell; see the notes)"
                                  : "";
    // Saturating at the last point measured only says the curve never flattened: no bound was reached.
    const int stencil_last = d.curves.stencil->points.back().threads;
    if (d.stencil->threads == stencil_last && d.curves.stencil->points.size() > 1)
      s += fmt::format("  the stencil still gains at its last point ({}): it has not saturated on this domain, so "
                       "neither memory bandwidth nor any smaller core count is its limit here{}\n",
                       threads_text(stencil_last), hedge);
    else if (d.stencil->threads <= d.triad->threads)
      s += fmt::format("  the stencil saturates no later than the memory bandwidth: it is bandwidth-bound on this "
                       "domain, and more cores than {} help neither{}\n",
                       d.triad->threads, hedge);
    else
      s += fmt::format("  the stencil keeps gaining after the triad saturates at {}: at this size it is limited "
                       "by the cores (arithmetic, caches), not by memory bandwidth{}\n",
                       threads_text(d.triad->threads), hedge);
  }
  const int ncores = static_cast<int>(d.cores.size());
  const std::string reached = d.compute_fraction_of_best
                                  ? fmt::format("{} of the {}'s best", percent(*d.compute_fraction_of_best), d.basis)
                                  : fmt::format("the {} curve has no point there", d.basis);
  s += fmt::format("  compute: {} ({}), {}\n", core_set(d.compute), threads_text(d.compute_cores), reached);
  const int surplus = d.surplus_cores();
  if (surplus >= 2) {
    s += fmt::format("  surplus: {}: the progress thread on core {}, daemons on {}\n", cores_text(surplus),
                     *d.progress_core, core_set(d.daemon_cores));
  } else if (surplus == 1) {
    s += fmt::format("  surplus: 1 core: the progress thread on core {}; no core left for daemons alone, they share "
                     "core {} with it\n",
                     *d.progress_core, *d.progress_core);
  } else if (ncores == 1) {
    s += "  no surplus: the domain has a single core, so nothing can be spared; a progress thread or daemon "
         "preempts the compute thread whenever it runs\n";
  } else {
    s += fmt::format("  no surplus: all {} are needed to come within {} of the best. A progress thread or daemon "
                     "then preempts a compute thread whenever it runs; in a bulk-synchronous code one late rank "
                     "delays all ranks every step, and more so the more nodes the job has.\n",
                     cores_text(ncores), percent(tolerance));
    if (d.cost_of_one_core)
      s += fmt::format("  keeping one core free anyway costs {} of the {}'s best (value at {} vs the best)\n",
                       percent(std::max(0.0, *d.cost_of_one_core)), d.basis, threads_text(ncores - 1));
    else
      s += fmt::format("  what keeping one core free would cost is unknown: the {} curve has no point at {}\n",
                       d.basis, threads_text(ncores - 1));
  }
  for (const std::string& note : d.notes) s += "  note: " + note + "\n";
  return s;
}

std::string describe_core_roles(const DomainAdvice& d) {
  std::string s = fmt::format("NUMA node {}: compute on {}", d.numa, core_set(d.compute));
  if (d.progress_core) s += fmt::format(", the progress thread on core {}", *d.progress_core);
  if (!d.daemon_cores.empty()) s += fmt::format(", daemons on {}", core_set(d.daemon_cores));
  if (d.surplus_cores() == 0) s += ", no surplus";
  return s;
}

std::string describe_node_advice(const NodeAdvice& a) {
  const int ranks = static_cast<int>(a.domains.size());
  int node_cores = 0;
  for (const DomainAdvice& d : a.domains) node_cores += static_cast<int>(d.cores.size());
  std::string s = fmt::format("node: {} rank{} (one per NUMA node) x {}: {} of {} compute, {} surplus\n", ranks,
                              ranks == 1 ? "" : "s", threads_text(a.threads_per_rank), cores_text(a.compute_cores),
                              node_cores, a.surplus_cores);
  if (a.request.progress_thread)
    s += fmt::format("  reserve {}: each rank's progress thread on the first reserved core of its NUMA node{}\n",
                     a.reserve, a.surplus_cores > ranks ? ", daemons on the others" : "");
  else if (a.reserve != "none")
    s += fmt::format("  reserve {}: left to daemons\n", a.reserve);
  else
    s += "  nothing reserved: every core computes\n";
  for (const std::string& note : a.notes) s += "  note: " + note + "\n";
  return s;
}

}  // namespace wave3d::advise
