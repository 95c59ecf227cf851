#pragma once
// How far apart a field's planes lie: the plane stride, padded so that the lines the z-column kernel
// keeps in L1 spread over its sets.
#include <cstdint>

namespace wave3d {

// The plane stride in cache lines for planes of at least `min_lines` lines, rows `row_lines` lines
// apart, and a stencil of `radius` (at most 8 counts).
//
// Why: the column kernel keeps in L1 the lines of 2R + 1 rows (and a few ahead) over the planes of a
// z block and its 2R neighbours. A line's L1 set is its line number modulo the number of sets, so
// with a plane stride congruent to the row stride (or to a small multiple of it) modulo the sets, the
// line of (row y + 1, plane z) shares a set with that of (y, z + 1), and the window's lines pile up in
// a fraction of the sets, past their ways. Measured on AMD Zen 5 (R = 8, 256-point rows of 17 lines,
// plane stride 17 lines modulo 64): 1.8x slower than with the planes padded by one line more. Padding
// to an odd number of lines, the rule before, avoids only the plane stride that is a multiple of 4 KiB.
//
// Returns the first stride from min_lines on whose fullest set holds at most one line more than an
// even spread would put in each; where none of the next 64 strides does, the one of those with the
// least full set.
std::int64_t plane_stride_lines(std::int64_t row_lines, std::int64_t min_lines, int radius);

// The most lines of the kernel's window (see above) that share one L1 set, for rows `row_lines` and
// planes `plane_lines` lines apart.
int fullest_l1_set(std::int64_t row_lines, std::int64_t plane_lines, int radius);

}  // namespace wave3d
