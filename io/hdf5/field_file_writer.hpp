#pragma once
// Writing one field file (a snapshot or a checkpoint) from every rank: created under a temporary
// name, the header attributes, one dataset per field with each rank's owned box written collectively,
// then closed on every rank and renamed to its final name by rank 0 (file_commit.hpp). A job killed
// at any point leaves at most a "<name>.tmp" behind; the final name only ever holds a complete file.
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "field/field.hpp"
#include "geometry/grid.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/file_commit.hpp"

namespace wave3d::io {

template <typename T>
struct FieldToWrite {
  std::string dataset;      // e.g. "wavefield", "current"
  const Field<T>* field;    // its owned box is written
  std::int64_t time_level;  // stored as the dataset's "time_level" attribute
};

// Called on every rank once the first dataset's values are in the temporary file and before the rest
// is written: lets tests stop a writer halfway.
using AfterFirstField = std::function<void(const std::filesystem::path& temporary)>;

// What a field file holds besides its values, at most: the header attributes, the coordinates and
// HDF5's own structures (64 KiB covers them).
std::uint64_t metadata_allowance(const FieldFileHeader& header);

// Collective: each field's "checksum" attribute, field_checksum of the owned boxes summed over the
// ranks (the run's checksum of that field, the same for any decomposition).
template <typename T>
std::vector<std::uint64_t> global_field_checksums(MPI_Comm comm, const std::vector<FieldToWrite<T>>& fields,
                                                  const Grid& grid);

// Collective, in a file open on every rank of comm: the header attributes, the coordinates /x, /y, /z
// (coordinate_scales.hpp), then for each field its dataset with the "time_level" and "checksum"
// attributes and the coordinates attached, handed to fill(dataset, index) and then closed.
// Both writers (through HDF5 here, directly in io/direct) lay out the same file with it.
template <typename T>
void create_field_datasets(MPI_Comm comm, hid_t file, const std::filesystem::path& file_name, const FieldFileHeader& header,
                           const std::vector<FieldToWrite<T>>& fields, const std::vector<std::uint64_t>& checksums,
                           const std::function<void(hid_t dataset, std::size_t index)>& fill);

// Collective. Writes `fields` with `header` to `path` as described above; `durability` says whether
// the published file must also survive a crash of the operating system (file_commit.hpp). Every dataset also gets a
// "checksum" attribute: field_checksum of the owned boxes summed over the ranks (the run's checksum
// of that field, the same for any decomposition), so a reader can tell a damaged file. Returns the
// bytes of field values written (all ranks together). A file its file system has no room for is
// refused before it is started; a write that fails removes its temporary. Throws Hdf5Error or
// std::runtime_error.
template <typename T>
std::uint64_t write_field_file(MPI_Comm comm, const std::filesystem::path& path, const FieldFileHeader& header,
                               const std::vector<FieldToWrite<T>>& fields, const Grid& grid,
                               const AfterFirstField& after_first_field = {},
                               Durability durability = Durability::system_crash);

}  // namespace wave3d::io
