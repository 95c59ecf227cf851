#pragma once
// The I/O study as text for the console: the context, one table per buffer placement (a row per
// thread count, a column pair per file-sharing mode) and the path matrix or why there is none.
#include <string>
#include <vector>

#include "iobench/io_study.hpp"

namespace wave3d {

// What is measured and on what: the file system, the timing rule, the sharing caveat.
std::string describe_study(const IoStudyOptions& options, const IoStudyContext& context);

// "buffer on-each-node (nodes 0,1): node 0: ... of 4096 sampled pages" and the table header.
std::string placement_header(const PlacementInfo& placement, const std::vector<FileSharing>& sharings);

// One table row from the cases of one thread count (one per sharing mode, in the header's order).
std::string case_row(const std::vector<IoCase>& cases);

// Where the page-cache pages of a placement's files were, all its cases together.
std::string page_cache_line(const std::vector<IoCase>& cases);

std::string path_matrix_header(const PathMatrix& matrix);
std::string path_row(const PathCase& c);
// The matrix's cases summarised per path kind (best of each kind, and as a share of the best local),
// or the note when it was not measured.
std::string path_matrix_summary(const PathMatrix& matrix);

}  // namespace wave3d
