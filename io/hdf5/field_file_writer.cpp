#include "io/hdf5/field_file_writer.hpp"

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/coordinate_scales.hpp"
#include "io/hdf5/file_commit.hpp"
#include "io/hdf5/grid_dataset.hpp"
#include "io/hdf5/parallel_file.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "verify/field_checks.hpp"

namespace wave3d::io {

std::uint64_t metadata_allowance(const FieldFileHeader& header) {
  const std::uint64_t coordinates = 8 * static_cast<std::uint64_t>(header.grid_n[0] + header.grid_n[1] + header.grid_n[2]);
  return header.config_json.size() + header.provenance_json.size() + header.snapshot_series_json.size() + coordinates +
         (64u << 10);
}

template <typename T>
std::vector<std::uint64_t> global_field_checksums(MPI_Comm comm, const std::vector<FieldToWrite<T>>& fields,
                                                  const Grid& grid) {
  std::vector<std::uint64_t> checksums;
  for (const FieldToWrite<T>& f : fields)
    checksums.push_back(mpi::allreduce_sum_u64(comm, field_checksum(*f.field, f.field->owned(), grid)));
  return checksums;
}

namespace {

// `header` with the first rank's texts on every rank. HDF5 wants every rank to pass the same value to
// a collective attribute write, and a rank's config may hold values of its own (its progress core, a
// node's thread count): the file records the first rank's.
FieldFileHeader as_on_first_rank(MPI_Comm comm, FieldFileHeader header) {
  for (std::string* text : {&header.config_json, &header.provenance_json, &header.snapshot_series_json})
    *text = mpi::broadcast_string(comm, *text, 0);
  return header;
}

}  // namespace

template <typename T>
void create_field_datasets(MPI_Comm comm, hid_t file, const std::filesystem::path& file_name,
                           const FieldFileHeader& header, const std::vector<FieldToWrite<T>>& fields,
                           const std::vector<std::uint64_t>& checksums,
                           const std::function<void(hid_t dataset, std::size_t index)>& fill) {
  write_header(file, as_on_first_rank(comm, header));
  const CoordinateScales coordinates = write_coordinate_scales(comm, file, header.grid_n, header.spacing);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const FieldToWrite<T>& f = fields[i];
    Hid dataset = create_grid_dataset<T>(file, f.dataset, header.grid_n);
    write_int_attribute(dataset.get(), "time_level", f.time_level);
    write_uint64_attribute(dataset.get(), "checksum", checksums[i]);
    // The scheme is linear: the wavefield carries the units of the initial condition's amplitude.
    write_text_attribute(dataset.get(), "units", "as init.amplitude (the scheme is linear)");
    write_real_attribute(dataset.get(), "time", static_cast<double>(f.time_level) * header.dt);  // level n: n dt
    write_text_attribute(dataset.get(), "time_units", "s");
    attach_coordinate_scales(dataset.get(), coordinates);
    try {
      fill(dataset.get(), i);
    } catch (const mpi::CollectiveError&) {
      dataset.abandon();  // a write every rank agrees failed: see Hid::abandon
      throw;
    }
    // Closing writes the dataset's last metadata, where a full disk or a quota may strike some ranks
    // only: they agree on the outcome before HDF5's next collective step.
    mpi::collectively(comm, [&] { dataset.close("cannot close dataset '" + f.dataset + "' of '" + file_name.string() + "'"); });
  }
}

template <typename T>
std::uint64_t write_field_file(MPI_Comm comm, const std::filesystem::path& path, const FieldFileHeader& header,
                               const std::vector<FieldToWrite<T>>& fields, const Grid& grid,
                               const AfterFirstField& after_first_field, Durability durability) {
  const std::vector<std::uint64_t> checksums = global_field_checksums(comm, fields, grid);
  const std::filesystem::path temporary = temporary_path(path);
  const std::uint64_t field_bytes =
      static_cast<std::uint64_t>(box_from_extents(header.grid_n).volume()) * sizeof(T) * fields.size();
  mpi::collectively(comm, [&] {
    if (mpi::rank_in(comm) == 0) check_room_for(path, field_bytes + metadata_allowance(header));
  });
  try {
    Hid file = create_parallel_file(comm, temporary);
    try {
      create_field_datasets(comm, file.get(), temporary, header, fields, checksums, [&](hid_t dataset, std::size_t i) {
        // The raw data is where a full disk or a quota strikes, on some ranks only: the ranks agree on
        // the outcome before HDF5's next collective step.
        mpi::collectively(comm, [&] { write_box<T>(dataset, owned_box(*fields[i].field)); });
        // The hook sees the first field's values written (H5Dwrite is collective and complete on return).
        if (i == 0 && after_first_field) after_first_field(temporary);
      });
    } catch (const mpi::CollectiveError&) {
      file.abandon();  // see Hid::abandon
      throw;
    }
    mpi::collectively(comm, [&] { file.close("cannot close '" + temporary.string() + "'"); });
  } catch (...) {
    // Nothing half-written stays behind: the last complete file keeps its name either way.
    if (mpi::rank_in(comm) == 0) discard_temporary(temporary);
    throw;
  }
  // Every rank's data is in the file once every rank has closed it; only then may it get its name.
  mpi::check(MPI_Barrier(comm), "MPI_Barrier");
  mpi::collectively(comm, [&] {
    if (mpi::rank_in(comm) == 0) publish_file(temporary, path, durability);
  });
  return field_bytes;
}

template std::vector<std::uint64_t> global_field_checksums<float>(MPI_Comm, const std::vector<FieldToWrite<float>>&,
                                                                 const Grid&);
template std::vector<std::uint64_t> global_field_checksums<double>(MPI_Comm, const std::vector<FieldToWrite<double>>&,
                                                                  const Grid&);
template void create_field_datasets<float>(MPI_Comm, hid_t, const std::filesystem::path&, const FieldFileHeader&,
                                           const std::vector<FieldToWrite<float>>&, const std::vector<std::uint64_t>&,
                                           const std::function<void(hid_t, std::size_t)>&);
template void create_field_datasets<double>(MPI_Comm, hid_t, const std::filesystem::path&, const FieldFileHeader&,
                                            const std::vector<FieldToWrite<double>>&, const std::vector<std::uint64_t>&,
                                            const std::function<void(hid_t, std::size_t)>&);
template std::uint64_t write_field_file<float>(MPI_Comm, const std::filesystem::path&, const FieldFileHeader&,
                                               const std::vector<FieldToWrite<float>>&, const Grid&,
                                               const AfterFirstField&, Durability);
template std::uint64_t write_field_file<double>(MPI_Comm, const std::filesystem::path&, const FieldFileHeader&,
                                                const std::vector<FieldToWrite<double>>&, const Grid&,
                                                const AfterFirstField&, Durability);

}  // namespace wave3d::io
