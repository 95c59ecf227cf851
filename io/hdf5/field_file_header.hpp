#pragma once
// What every wave3d field file (snapshot or checkpoint) says about itself, as attributes of its root
// group: the kind of file, the time level, the grid and stencil, and the run that wrote it (its
// resolved configuration and provenance as JSON text, the same objects as in run.json).
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "config/run_config.hpp"
#include "geometry/box.hpp"

namespace wave3d::io {

inline constexpr std::string_view kSnapshotFormat = "wave3d-snapshot";
inline constexpr std::string_view kCheckpointFormat = "wave3d-checkpoint";
inline constexpr std::int64_t kFieldFileVersion = 1;

struct FieldFileHeader {
  std::string format;  // kSnapshotFormat or kCheckpointFormat
  std::int64_t format_version = kFieldFileVersion;
  std::int64_t step = 0;  // time level of the wavefield (of "current" in a checkpoint)
  double time = 0.0;      // step * dt, seconds
  double dt = 0.0;        // seconds
  double spacing = 0.0;   // metres, every axis
  std::int64_t stencil_radius = 0;
  Index3 grid_n{0, 0, 0};  // points along x, y, z (the datasets' dimensions are z, y, x)
  std::string precision;   // "single", "double"
  std::string boundary;    // "periodic", "zero"
  std::string config_json;
  std::string provenance_json;
  // A checkpoint's record of the snapshots written up to it, as JSON [{file (absolute), dataset, step,
  // time}], so that a run continued from it extends the same series; "" when none were written.
  std::string snapshot_series_json;
};

// The header of a file of kind `format` written at time level `step` by a run of `config`.
FieldFileHeader field_file_header(std::string_view format, const RunConfig& config, std::int64_t step,
                                  std::string provenance_json);

// Collective: writes every field as an attribute of `file`'s root group (plus "axes", which says how
// the datasets are indexed).
void write_header(hid_t file, const FieldFileHeader& header);

// Reads the header back. Throws Hdf5Error naming the first attribute that is missing or of the wrong
// kind.
FieldFileHeader read_header(hid_t file);

}  // namespace wave3d::io
