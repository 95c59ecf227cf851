#include "io/hdf5/field_file_header.hpp"

#include "config/config_json.hpp"
#include "config/enum_names.hpp"
#include "io/hdf5/attributes.hpp"

namespace wave3d::io {

FieldFileHeader field_file_header(std::string_view format, const RunConfig& config, std::int64_t step,
                                  std::string provenance_json) {
  FieldFileHeader h;
  h.format = std::string(format);
  h.step = step;
  h.time = static_cast<double>(step) * config.physics.dt;
  h.dt = config.physics.dt;
  h.spacing = config.grid.spacing;
  h.stencil_radius = config.grid.radius;
  h.grid_n = config.grid.n;
  h.precision = std::string(enum_name(config.precision));
  h.boundary = std::string(enum_name(config.grid.boundary));
  h.config_json = config_to_json(config).dump(2);
  h.provenance_json = std::move(provenance_json);
  return h;
}

void write_header(hid_t file, const FieldFileHeader& h) {
  write_text_attribute(file, "format", h.format);
  write_int_attribute(file, "format_version", h.format_version);
  write_int_attribute(file, "step", h.step);
  write_real_attribute(file, "time", h.time);
  write_real_attribute(file, "dt", h.dt);
  write_real_attribute(file, "spacing", h.spacing);
  write_int_attribute(file, "stencil_radius", h.stencil_radius);
  write_int3_attribute(file, "grid_n", h.grid_n);
  write_text_attribute(file, "precision", h.precision);
  write_text_attribute(file, "boundary", h.boundary);
  write_text_attribute(file, "axes", "datasets are [z][y][x] with x fastest; grid_n is (x, y, z)");
  // Units, for readers that look for them: times in seconds, lengths in metres; point (i, j, k) lies at
  // (i, j, k) x spacing from the origin.
  write_text_attribute(file, "time_units", "s");
  write_text_attribute(file, "dt_units", "s");
  write_text_attribute(file, "spacing_units", "m");
  write_text_attribute(file, "coordinates", "x = i * spacing, y = j * spacing, z = k * spacing (metres), origin 0");
  write_text_attribute(file, "config", h.config_json);
  write_text_attribute(file, "provenance", h.provenance_json);
  if (!h.snapshot_series_json.empty()) write_text_attribute(file, "snapshot_series", h.snapshot_series_json);
}

FieldFileHeader read_header(hid_t file) {
  FieldFileHeader h;
  h.format = read_text_attribute(file, "format");
  h.format_version = read_int_attribute(file, "format_version");
  h.step = read_int_attribute(file, "step");
  h.time = read_real_attribute(file, "time");
  h.dt = read_real_attribute(file, "dt");
  h.spacing = read_real_attribute(file, "spacing");
  h.stencil_radius = read_int_attribute(file, "stencil_radius");
  h.grid_n = read_int3_attribute(file, "grid_n");
  h.precision = read_text_attribute(file, "precision");
  h.boundary = read_text_attribute(file, "boundary");
  h.config_json = read_text_attribute(file, "config");
  h.provenance_json = read_text_attribute(file, "provenance");
  if (has_attribute(file, "snapshot_series")) h.snapshot_series_json = read_text_attribute(file, "snapshot_series");
  return h;
}

}  // namespace wave3d::io
