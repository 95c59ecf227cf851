#pragma once
// The advice as text for people: per NUMA domain the two curves side by side with the saturation points
// marked, then what the curves say and what to do with the cores.
#include <string>

#include "advise/advice.hpp"

namespace wave3d::advise {

// Header line, then one row per thread count on either curve: the value and its fraction of the curve's
// best, with "<" after the saturation point's fraction.
std::string render_curve_table(const DomainAdvice& domain, double tolerance);

// Where each curve saturates, what that says about the stencil, the compute cores and what goes on the
// surplus cores (or, with none, what sharing a core and giving one up cost).
std::string describe_domain_advice(const DomainAdvice& domain, double tolerance);

// One line: "NUMA node 1: compute on cores 4-5, the progress thread on core 6, daemons on core 7".
std::string describe_core_roles(const DomainAdvice& domain);

// The node's plan in a few lines: ranks, threads, compute and surplus cores, reservation, notes.
std::string describe_node_advice(const NodeAdvice& advice);

}  // namespace wave3d::advise
