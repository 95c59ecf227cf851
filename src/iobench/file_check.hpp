#pragma once
// Checking a written file: that it holds exactly the bytes of the segments written to it, and where
// the kernel put its page-cache pages (the destination of the write).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "field/page_locations.hpp"
#include "iobench/write_segment.hpp"

namespace wave3d {

// Reads back every segment's file range and compares it with its memory. Empty when all equal;
// otherwise where the first difference (or read error) is.
std::string compare_file_with_segments(int fd, std::span<const WriteSegment> segments, std::string_view file);

// Maps the first `bytes` of the file read-only, faults its pages in (MAP_POPULATE maps the page-cache
// pages, allocating nothing) and asks the kernel which NUMA node holds them (sampled, move_pages).
PageHistogram locate_file_pages(int fd, std::uint64_t bytes, std::size_t max_samples = 4096);

// Adds the counts of `more` to `into` (both must be available; an unavailable one makes the sum so).
void add_histogram(PageHistogram& into, const PageHistogram& more);

}  // namespace wave3d
