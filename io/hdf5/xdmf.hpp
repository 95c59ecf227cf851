#pragma once
// The XDMF sidecar of a series of snapshots: a small XML file that tells ParaView and VisIt how to
// read the HDF5 files as a time series on a uniform grid ("Xdmf3ReaderS" in ParaView, or open the
// .xmf in VisIt). The values stay in the HDF5 files; the sidecar only points at them.
#include <cstdint>
#include <string>
#include <vector>

#include "geometry/box.hpp"

namespace wave3d::io {

struct XdmfFrame {
  std::string file;     // the HDF5 file, relative to the sidecar's directory
  std::string dataset;  // e.g. "/wavefield"
  std::int64_t step = 0;
  double time = 0.0;    // seconds
};

// XDMF 3: a temporal collection of uniform grids (3DCoRectMesh of grid_n points, origin 0, the
// given spacing on every axis), each with one node-centred scalar `attribute` read from its frame's
// dataset of values of `value_bytes` bytes (4 or 8). File and dataset names are XML-escaped.
std::string format_xdmf(const std::vector<XdmfFrame>& frames, const Index3& grid_n, double spacing,
                        std::size_t value_bytes, const std::string& attribute);

// `text` with &, <, >, " and ' replaced by XML entities.
std::string xml_escape(const std::string& text);

}  // namespace wave3d::io
