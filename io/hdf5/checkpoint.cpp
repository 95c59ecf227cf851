#include "io/hdf5/checkpoint.hpp"

#include <fmt/format.h>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/parallel_file.hpp"
#include "mpi/collective.hpp"
#include "verify/field_checks.hpp"

namespace wave3d::io {
namespace {

std::string shape_text(const GridDatasetShape& s) {
  return fmt::format("{}x{}x{} of {}-byte {}", s.n[0], s.n[1], s.n[2], s.value_bytes,
                     s.floating_point ? "floats" : "non-floats");
}

template <typename T>
void read_level(MPI_Comm comm, hid_t file, const char* name, Field<T>& field, const Grid& grid) {
  const Hid dataset = open_grid_dataset(file, name);
  const std::uint64_t recorded = read_uint64_attribute(dataset.get(), "checksum");
  read_box<T>(dataset.get(), owned_box(field));
  const std::uint64_t actual = mpi::allreduce_sum_u64(comm, field_checksum(field, field.owned(), grid));
  if (actual != recorded)
    throw CheckpointError(fmt::format("the values of dataset '{}' are damaged: their checksum is 0x{:016x}, the file "
                                      "recorded 0x{:016x}",
                                      name, actual, recorded));
}

}  // namespace

std::string checkpoint_file_name(std::int64_t step) { return fmt::format("checkpoint_{:06d}.h5", step); }

template <typename T>
std::uint64_t write_checkpoint(MPI_Comm comm, const std::filesystem::path& path, FieldFileHeader header,
                               const Field<T>& current, const Field<T>& previous, const Grid& grid,
                               const AfterFirstField& after_first_field) {
  header.format = std::string(kCheckpointFormat);
  return write_field_file<T>(comm, path, header,
                             {{kCurrentDataset, &current, header.step}, {kPreviousDataset, &previous, header.step - 1}},
                             grid, after_first_field, Durability::system_crash);
}

CheckpointReader::CheckpointReader(MPI_Comm comm, const std::filesystem::path& path) : comm_(comm) {
  try {
    file_ = open_parallel_file(comm, path);
  } catch (const Hdf5Error& e) {
    throw CheckpointError(fmt::format("not a readable HDF5 file (truncated, damaged or of another kind): {}", e.what()));
  }
  try {
    if (!has_attribute(file_.get(), "format"))
      throw CheckpointError("an HDF5 file, but not a wave3d checkpoint (it has no 'format' attribute)");
    const std::string format = read_text_attribute(file_.get(), "format");
    if (format != kCheckpointFormat)
      throw CheckpointError(fmt::format("a '{}' file, not a '{}'{}", format, kCheckpointFormat,
                                        format == kSnapshotFormat ? " (a snapshot holds one time level, a restart "
                                                                    "needs two)"
                                                                  : ""));
    const std::int64_t version = read_int_attribute(file_.get(), "format_version");
    if (version != kFieldFileVersion)
      throw CheckpointError(fmt::format("checkpoint format version {}, this wave3d reads version {}", version,
                                        kFieldFileVersion));
    header_ = read_header(file_.get());
    shape_ = grid_dataset_shape(open_grid_dataset(file_.get(), kCurrentDataset).get(), kCurrentDataset);
    const GridDatasetShape previous =
        grid_dataset_shape(open_grid_dataset(file_.get(), kPreviousDataset).get(), kPreviousDataset);
    if (previous.n != shape_.n || previous.value_bytes != shape_.value_bytes ||
        previous.floating_point != shape_.floating_point)
      throw CheckpointError(fmt::format("its datasets differ: '{}' is {}, '{}' is {}", kCurrentDataset,
                                        shape_text(shape_), kPreviousDataset, shape_text(previous)));
    if (!shape_.floating_point || (shape_.value_bytes != 4 && shape_.value_bytes != 8))
      throw CheckpointError(fmt::format("its datasets hold {}, not 4- or 8-byte floats", shape_text(shape_)));
    if (shape_.n != header_.grid_n)
      throw CheckpointError(fmt::format("its datasets are {}x{}x{} but its grid_n attribute says {}x{}x{}", shape_.n[0],
                                        shape_.n[1], shape_.n[2], header_.grid_n[0], header_.grid_n[1],
                                        header_.grid_n[2]));
  } catch (const Hdf5Error& e) {
    throw CheckpointError(fmt::format("not a complete wave3d checkpoint: {}", e.what()));
  }
}

template <typename T>
void CheckpointReader::read(Field<T>& current, Field<T>& previous, const Grid& grid) {
  if (shape_.value_bytes != sizeof(T))
    throw CheckpointError(fmt::format("it holds {}-byte values, not {}-byte ones", shape_.value_bytes, sizeof(T)));
  try {
    read_level(comm_, file_.get(), kCurrentDataset, current, grid);
    read_level(comm_, file_.get(), kPreviousDataset, previous, grid);
  } catch (const Hdf5Error& e) {
    throw CheckpointError(fmt::format("cannot read its fields: {}", e.what()));
  }
}

template std::uint64_t write_checkpoint<float>(MPI_Comm, const std::filesystem::path&, FieldFileHeader,
                                               const Field<float>&, const Field<float>&, const Grid&,
                                               const AfterFirstField&);
template std::uint64_t write_checkpoint<double>(MPI_Comm, const std::filesystem::path&, FieldFileHeader,
                                                const Field<double>&, const Field<double>&, const Grid&,
                                                const AfterFirstField&);
template void CheckpointReader::read<float>(Field<float>&, Field<float>&, const Grid&);
template void CheckpointReader::read<double>(Field<double>&, Field<double>&, const Grid&);

}  // namespace wave3d::io
