#include "mpi/decomposition.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

#include "field/field.hpp"  // Field::layout_for: the memory estimate is the fields' own layout

namespace wave3d::mpi {
namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// Saturating arithmetic: absurd configurations must still produce an error message, not wrap around
// into a small number that passes a check.
std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kSaturated / a) return kSaturated;
  return a * b;
}
std::uint64_t add_sat(std::uint64_t a, std::uint64_t b) { return b > kSaturated - a ? kSaturated : a + b; }

// Strings are built by appending: GCC 12 warns falsely (-Wrestrict) about "literal" + std::string&&.
template <typename Array>
std::string list_text(const Array& v) {  // "[3, 2, 0]", the way the settings are written
  std::string s = "[";
  for (int a = 0; a < 3; ++a) {
    if (a > 0) s += ", ";
    s += std::to_string(v[a]);
  }
  s += ']';
  return s;
}
template <typename Array>
std::string cross_text(const Array& v) {  // "2 x 2 x 4"
  return std::to_string(v[0]) + " x " + std::to_string(v[1]) + " x " + std::to_string(v[2]);
}
std::string ranks_text(std::int64_t n) { return std::to_string(n) + (n == 1 ? " rank" : " ranks"); }

std::string bytes_text(std::uint64_t bytes) {
  if (bytes == kSaturated) return "more than 16 EiB";
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

// Halos come only from the immediate neighbour, so a rank that is cut along an axis must own at least
// `radius` points along it. An axis with one rank needs no exchange; whether the grid itself is thick
// enough there is the grid's validation, not the decomposition's.
bool too_thin(const Index3& n, const Dims3& dims, int axis, int radius) {
  return dims[axis] > 1 && n[axis] / dims[axis] < radius;
}

// The thinnest subdomain along any cut axis (the largest int64 if nothing is cut): ranks the
// infeasible candidates by how close they come.
std::int64_t thinnest(const Index3& n, const Dims3& dims) {
  std::int64_t t = std::numeric_limits<std::int64_t>::max();
  for (int a = 0; a < 3; ++a)
    if (dims[a] > 1) t = std::min(t, n[a] / dims[a]);
  return t;
}

// Most ranks along `axis` that keep every subdomain at least `radius` thick (1 is always allowed).
std::int64_t max_ranks_along(const Index3& n, int axis, int radius) {
  return std::max<std::int64_t>(1, n[axis] / radius);
}

std::string thin_message(const Index3& n, const Dims3& dims, int radius) {
  std::string message;
  for (int a = 0; a < 3; ++a) {
    if (!too_thin(n, dims, a, radius)) continue;
    const std::int64_t small = n[a] / dims[a];
    const std::string sizes = n[a] % dims[a] == 0 ? std::to_string(small)
                                                  : std::to_string(small) + " to " + std::to_string(small + 1);
    if (!message.empty()) message += "; ";
    message += "grid.n[" + std::to_string(a) + "] = " + std::to_string(n[a]) + " over " + ranks_text(dims[a]) +
               " along " + kAxisNames[a] + " gives subdomains of " + sizes + " points, thinner than the stencil radius " +
               std::to_string(radius) + "; use at most " + ranks_text(max_ranks_along(n, a, radius)) + " along " +
               kAxisNames[a];
  }
  return message;
}

void validate_inputs(const Index3& n, int ranks, const Dims3& requested, int radius) {
  if (ranks < 1) {
    throw DecompositionError("MPI rank count (mpiexec -n) = " + std::to_string(ranks) +
                             " is invalid: it must be at least 1");
  }
  if (radius < 1) {
    throw DecompositionError("stencil radius = " + std::to_string(radius) + " is invalid: it must be at least 1");
  }
  if (n[0] < 1 || n[1] < 1 || n[2] < 1) {
    throw DecompositionError("grid.n = " + list_text(n) + " is invalid: every extent must be at least 1 point");
  }
  const std::string setting = "parallel.process_grid = " + list_text(requested);
  if (requested[0] < 0 || requested[1] < 0 || requested[2] < 0) {
    throw DecompositionError(setting + " is invalid: each entry must be a rank count of at least 1, or 0 to let "
                             "wave3d choose");
  }
  // The product of the given entries, e.g. "3*2"; saturated so that huge entries cannot wrap around.
  std::uint64_t product = 1;
  std::string factors;
  int given = 0;
  for (int a = 0; a < 3; ++a) {
    if (requested[a] == 0) continue;
    product = mul_sat(product, static_cast<std::uint64_t>(requested[a]));
    if (!factors.empty()) factors += '*';
    factors += std::to_string(requested[a]);
    ++given;
  }
  const auto count = static_cast<std::uint64_t>(ranks);
  if (given == 3 && product != count) {
    const std::string value = product == kSaturated ? "more than " + std::to_string(count) : std::to_string(product);
    throw DecompositionError(setting + " does not fit " + ranks_text(ranks) + ": " + factors + " = " + value +
                             ", but the product must equal the rank count " + std::to_string(ranks));
  }
  if (given > 0 && given < 3 && count % product != 0) {
    throw DecompositionError(setting + " does not fit " + ranks_text(ranks) + ": " + std::to_string(ranks) +
                             " is not divisible by " + factors + " (the non-zero entries must multiply to a divisor of " +
                             std::to_string(ranks) + ")");
  }
}

// Every px * py * pz = ranks agreeing with the non-zero requested entries, px ascending, then py
// ascending: the tie-break order, so the first best candidate found is the one the rule prefers.
std::vector<Dims3> factorisations(int ranks, const Dims3& requested) {
  std::vector<Dims3> out;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px != 0 || (requested[0] != 0 && requested[0] != px)) continue;
    const int rest = ranks / px;
    for (int py = 1; py <= rest; ++py) {
      if (rest % py != 0 || (requested[1] != 0 && requested[1] != py)) continue;
      const int pz = rest / py;
      if (requested[2] != 0 && requested[2] != pz) continue;
      out.push_back({px, py, pz});
    }
  }
  return out;
}

std::string no_fit_message(const Index3& n, int ranks, const Dims3& requested, int radius,
                           const std::vector<Dims3>& candidates) {
  // Closest: the thickest thinnest subdomain; among equals, the least halo surface (then tie order).
  Dims3 closest = candidates.front();
  for (const Dims3& c : candidates) {
    const std::int64_t tc = thinnest(n, c), tb = thinnest(n, closest);
    if (tc > tb || (tc == tb && halo_surface(n, c) < halo_surface(n, closest))) closest = c;
  }
  const bool any_requested = requested[0] != 0 || requested[1] != 0 || requested[2] != 0;
  const Dims3 limit{static_cast<int>(std::min<std::int64_t>(max_ranks_along(n, 0, radius), ranks)),
                    static_cast<int>(std::min<std::int64_t>(max_ranks_along(n, 1, radius), ranks)),
                    static_cast<int>(std::min<std::int64_t>(max_ranks_along(n, 2, radius), ranks))};
  return "no process grid for " + ranks_text(ranks) +
         (any_requested ? " with parallel.process_grid = " + list_text(requested) : std::string()) +
         " fits grid.n = " + list_text(n) + " with stencil radius " + std::to_string(radius) +
         ": every subdomain must be at least " + std::to_string(radius) +
         " points thick along each axis that is split, which allows at most " + cross_text(limit) +
         " ranks along x, y, z. The closest is " + cross_text(closest) + ": " + thin_message(n, closest, radius) +
         ". Use a rank count that factors within those limits, or a larger grid";
}

}  // namespace

Range split_range(std::int64_t n, int parts, int index) {
  if (parts < 1 || index < 0 || index >= parts) {
    throw std::out_of_range("split_range: part " + std::to_string(index) + " of " + std::to_string(parts));
  }
  const std::int64_t base = n / parts, extra = n % parts;
  // The first `extra` parts hold base + 1 points, so part i starts after i * base + min(i, extra).
  const std::int64_t lo = index * base + std::min<std::int64_t>(index, extra);
  return {lo, lo + base + (index < extra ? 1 : 0)};
}

std::uint64_t halo_surface(const Index3& n, const Dims3& dims) {
  std::uint64_t total = 0;
  for (int a = 0; a < 3; ++a) {
    // (p - 1) interior cut planes across axis a, each of the full cross-section, seen from both sides.
    const auto area = mul_sat(static_cast<std::uint64_t>(n[(a + 1) % 3]), static_cast<std::uint64_t>(n[(a + 2) % 3]));
    total = add_sat(total, mul_sat(2 * static_cast<std::uint64_t>(dims[a] - 1), area));
  }
  return total;
}

Dims3 Decomposition::coords_of(int rank) const {
  if (rank < 0 || rank >= ranks()) throw std::out_of_range("coords_of: no rank " + std::to_string(rank));
  return {rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1])};
}

int Decomposition::rank_of(const Dims3& c) const {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= dims[a]) throw std::out_of_range("rank_of: no rank at coordinates " + list_text(c));
  return c[0] + dims[0] * (c[1] + dims[1] * c[2]);
}

const Box& Decomposition::box_of(int rank) const {
  if (rank < 0 || rank >= static_cast<int>(boxes.size())) {
    throw std::out_of_range("box_of: no rank " + std::to_string(rank));
  }
  return boxes[static_cast<std::size_t>(rank)];
}

int Decomposition::neighbour(int rank, int axis, int direction, bool periodic) const {
  if (axis < 0 || axis > 2 || (direction != -1 && direction != 1)) {
    throw std::invalid_argument("neighbour: axis " + std::to_string(axis) + ", direction " + std::to_string(direction));
  }
  Dims3 c = coords_of(rank);
  c[axis] += direction;
  if (c[axis] < 0 || c[axis] >= dims[axis]) {
    if (!periodic) return -1;
    c[axis] = (c[axis] + dims[axis]) % dims[axis];
  }
  return rank_of(c);
}

Decomposition decompose(const Index3& global_n, int ranks, const Dims3& requested, int radius) {
  validate_inputs(global_n, ranks, requested, radius);
  const std::vector<Dims3> candidates = factorisations(ranks, requested);  // non-empty after validation

  bool found = false;
  Dims3 best{};
  std::uint64_t best_surface = 0;
  for (const Dims3& c : candidates) {
    if (too_thin(global_n, c, 0, radius) || too_thin(global_n, c, 1, radius) || too_thin(global_n, c, 2, radius))
      continue;
    const std::uint64_t s = halo_surface(global_n, c);
    if (!found || s < best_surface) {  // strict: the earlier candidate wins ties (see factorisations)
      found = true;
      best = c;
      best_surface = s;
    }
  }
  if (!found) {
    const bool fully_requested = requested[0] != 0 && requested[1] != 0 && requested[2] != 0;
    if (fully_requested) {
      throw DecompositionError("parallel.process_grid = " + list_text(requested) + " does not fit grid.n = " +
                               list_text(global_n) + ": " + thin_message(global_n, requested, radius));
    }
    throw DecompositionError(no_fit_message(global_n, ranks, requested, radius, candidates));
  }

  Decomposition d;
  d.global_n = global_n;
  d.dims = best;
  d.halo_surface = best_surface;
  d.boxes.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const Dims3 c = d.coords_of(r);
    Box b;
    for (int a = 0; a < 3; ++a) {
      const Range range = split_range(global_n[a], best[a], c[a]);
      b.lo[a] = range.lo;
      b.hi[a] = range.hi;
    }
    d.boxes.push_back(b);
  }
  return d;
}

namespace {

// The plane stride of `box` with a halo of `radius`, rows starting a cache line at its first x or
// `radius` points in, whichever is longer.
template <typename T>
std::int64_t larger_plane(const Box& box, int radius) {
  return std::max(Field<T>::layout_for(box, radius, box.lo[0]).plane,
                  Field<T>::layout_for(box, radius, box.lo[0] + radius).plane);
}

}  // namespace

std::uint64_t estimate_bytes_per_rank(const Decomposition& d, int rank, int radius, std::size_t bytes_per_value,
                                      int fields) {
  if (radius < 0 || bytes_per_value == 0 || fields < 0) {
    throw std::invalid_argument("estimate_bytes_per_rank: radius " + std::to_string(radius) + ", " +
                                std::to_string(bytes_per_value) + " bytes per value, " + std::to_string(fields) +
                                " fields");
  }
  // Field's own layout (row and plane padding included) for the rank's box and an R-deep halo, with
  // rows starting a cache line at the first owned x or past a zero boundary's layer, whichever is
  // larger. One plane of it, times the planes with saturation: a grid far too large must be refused,
  // not wrap.
  const Box owned = d.box_of(rank);
  const Box one_plane{owned.lo, {owned.hi[0], owned.hi[1], owned.lo[2] + 1}};
  std::int64_t plane = 0;
  if (bytes_per_value == sizeof(float)) {
    plane = larger_plane<float>(one_plane, radius);
  } else if (bytes_per_value == sizeof(double)) {
    plane = larger_plane<double>(one_plane, radius);
  } else {
    throw std::invalid_argument("estimate_bytes_per_rank: " + std::to_string(bytes_per_value) +
                                " bytes per value; allowed: 4 (single) or 8 (double)");
  }
  const auto values = mul_sat(static_cast<std::uint64_t>(plane), static_cast<std::uint64_t>(owned.extent(2) + 2 * radius));
  return mul_sat(mul_sat(values, bytes_per_value), static_cast<std::uint64_t>(fields));
}

namespace {

// The rank with the most field bytes. Rank 0 is the largest under the remainder-first rule, but taking
// the maximum keeps this true whatever the split rule becomes.
int largest_rank(const Decomposition& d, int radius, std::size_t bytes_per_value, int fields) {
  int largest = 0;
  std::uint64_t most = 0;
  // The estimate depends on the box's extents only, and a split gives at most two per axis: each is
  // estimated once (a million ranks took seconds otherwise, the plane padding being a search).
  std::map<std::array<std::int64_t, 3>, std::uint64_t> bytes_of_extents;
  for (int r = 0; r < d.ranks(); ++r) {
    const Box& box = d.box_of(r);
    const std::array<std::int64_t, 3> extents{box.extent(0), box.extent(1), box.extent(2)};
    auto known = bytes_of_extents.find(extents);
    if (known == bytes_of_extents.end())
      known = bytes_of_extents.emplace(extents, estimate_bytes_per_rank(d, r, radius, bytes_per_value, fields)).first;
    if (known->second > most) {
      most = known->second;
      largest = r;
    }
  }
  return largest;
}

}  // namespace

std::uint64_t field_bytes_per_node(const Decomposition& d, int radius, std::size_t bytes_per_value, int ranks_per_node,
                                   int fields) {
  if (ranks_per_node < 1)
    throw std::invalid_argument("field_bytes_per_node: ranks_per_node = " + std::to_string(ranks_per_node));
  const std::uint64_t per_rank =
      estimate_bytes_per_rank(d, largest_rank(d, radius, bytes_per_value, fields), radius, bytes_per_value, fields);
  return mul_sat(per_rank, static_cast<std::uint64_t>(std::min(ranks_per_node, d.ranks())));
}

void check_fits_in_memory(const Decomposition& d, int radius, std::size_t bytes_per_value, int ranks_per_node,
                          std::uint64_t available_bytes, int fields) {
  const std::uint64_t per_node = field_bytes_per_node(d, radius, bytes_per_value, ranks_per_node, fields);
  if (per_node <= available_bytes) return;
  const int largest = largest_rank(d, radius, bytes_per_value, fields);
  const std::uint64_t per_rank = estimate_bytes_per_rank(d, largest, radius, bytes_per_value, fields);
  const int on_node = std::min(ranks_per_node, d.ranks());

  std::string advice = "use more nodes, fewer ranks per node";
  if (bytes_per_value > 4) advice += ", single precision";
  advice += " or a smaller grid";
  throw DecompositionError(
      "grid.n = " + list_text(d.global_n) + " does not fit in memory: split " + cross_text(d.dims) + " over " +
      ranks_text(d.ranks()) + ", the largest rank needs " + bytes_text(per_rank) + " (" + std::to_string(fields) +
      " fields of " + cross_text(d.box_of(largest).extents()) + " points plus a halo of " + std::to_string(radius) +
      ", " + std::to_string(bytes_per_value) + " bytes per value), so " + ranks_text(on_node) + " per node need" +
      (on_node == 1 ? "s " : " ") + bytes_text(per_node) + ", but only " + bytes_text(available_bytes) +
      " is available on the node (MemAvailable); " + advice);
}

}  // namespace wave3d::mpi
