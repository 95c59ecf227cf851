#pragma once
// The I/O study as JSON (nlohmann's to_json hooks, found by ADL): what `wave3d iobench --json` writes
// and python/tools/plot_iobench.py reads.
#include <nlohmann/json.hpp>

#include "iobench/io_study.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const FileSystemInfo& fs);
void to_json(nlohmann::json& j, const BandwidthSummary& b);
void to_json(nlohmann::json& j, const IoCase& c);
void to_json(nlohmann::json& j, const PlacementInfo& p);
void to_json(nlohmann::json& j, const PathCase& c);
void to_json(nlohmann::json& j, const PathMatrix& m);
// {"file_system", "numa_nodes", "threads", "page_bytes", "placements", "sweep", "path_matrix", "kept_files"}
void to_json(nlohmann::json& j, const IoStudyResult& r);

}  // namespace wave3d
