#include "iobench/box_segments.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace wave3d {

std::uint64_t c_order_offset(const Index3& n, const Index3& p, std::size_t element_bytes) {
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  return ((u(p[2]) * u(n[1]) + u(p[1])) * u(n[0]) + u(p[0])) * element_bytes;
}

std::vector<WriteSegment> box_rows_in_dataset(const BoxRows& source, const Index3& n, std::uint64_t dataset_offset) {
  const Box& b = source.box;
  if (b.empty()) return {};
  if (!(intersect(b, box_from_extents(n)) == b))
    throw std::invalid_argument(fmt::format("box [{},{})x[{},{})x[{},{}) is not inside the dataset of {} x {} x {}",
                                            b.lo[0], b.hi[0], b.lo[1], b.hi[1], b.lo[2], b.hi[2], n[0], n[1], n[2]));
  const std::size_t e = source.element_bytes;
  const std::size_t row_bytes = static_cast<std::size_t>(b.extent(0)) * e;
  std::vector<WriteSegment> rows;
  rows.reserve(static_cast<std::size_t>(b.extent(1) * b.extent(2)));
  for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
      const std::int64_t elements = (z - b.lo[2]) * source.plane_stride + (y - b.lo[1]) * source.row_stride;
      rows.push_back(WriteSegment{source.first + elements * static_cast<std::int64_t>(e),
                                  dataset_offset + c_order_offset(n, {b.lo[0], y, z}, e), row_bytes});
    }
  return rows;
}

}  // namespace wave3d
