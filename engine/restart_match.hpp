#pragma once
// Whether a checkpoint can continue a run: the grid, the stencil radius and the precision (read from
// the file's datasets and attributes), every setting the field's evolution depends on (spacing,
// boundary, velocity, time step, initial condition and source, compared with the configuration
// recorded in the file), and a step within run.steps. Anything else (ranks, process grid, threads,
// halo mode, blocking, output) may differ: a continued run is bitwise the uninterrupted one.
// Pure: no MPI, no file access.
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/grid_dataset.hpp"

namespace wave3d::engine {

// The settings compared through the recorded configuration, as dotted config keys: spacing,
// boundary, velocity, time step and initial condition, and what the condition uses after step 0 (the
// Ricker source's position, frequency and amplitude; the mode's waves and amplitude, for the exact
// solution verification compares with).
std::vector<std::string> continuation_keys(InitialKind condition);

// One phrase per mismatch, naming the key and both values, e.g. "grid 64x64x64 does not match
// grid.n = 128,128,128"; empty when the checkpoint fits `config`.
std::vector<std::string> checkpoint_mismatches(const io::FieldFileHeader& header, const io::GridDatasetShape& shape,
                                               const RunConfig& config);

}  // namespace wave3d::engine
