#include "io/hdf5/field_file_writer.hpp"

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/file_commit.hpp"
#include "io/hdf5/grid_dataset.hpp"
#include "io/hdf5/parallel_file.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "verify/field_checks.hpp"

namespace wave3d::io {

template <typename T>
std::uint64_t write_field_file(MPI_Comm comm, const std::filesystem::path& path, const FieldFileHeader& header,
                               const std::vector<FieldToWrite<T>>& fields, const Grid& grid,
                               const AfterFirstField& after_first_field, Durability durability) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::uint64_t> checksums;
  for (const FieldToWrite<T>& f : fields)
    checksums.push_back(mpi::allreduce_sum_u64(comm, field_checksum(*f.field, f.field->owned(), grid)));

  const std::filesystem::path temporary = temporary_path(path);
  {
    Hid file = create_parallel_file(comm, temporary);
    write_header(file.get(), header);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const FieldToWrite<T>& f = fields[i];
      Hid dataset = create_grid_dataset<T>(file.get(), f.dataset, header.grid_n);
      write_int_attribute(dataset.get(), "time_level", f.time_level);
      write_uint64_attribute(dataset.get(), "checksum", checksums[i]);
      write_box<T>(dataset.get(), owned_box(*f.field));
      dataset.close("cannot close dataset '" + f.dataset + "' of '" + temporary.string() + "'");
      if (i == 0 && after_first_field) after_first_field(temporary);
    }
    file.close("cannot close '" + temporary.string() + "'");
  }
  // Every rank's data is in the file once every rank has closed it; only then may it get its name.
  mpi::check(MPI_Barrier(comm), "MPI_Barrier");
  mpi::collectively(comm, [&] {
    if (rank == 0) publish_file(temporary, path, durability);
  });
  return static_cast<std::uint64_t>(box_from_extents(header.grid_n).volume()) * sizeof(T) * fields.size();
}

template std::uint64_t write_field_file<float>(MPI_Comm, const std::filesystem::path&, const FieldFileHeader&,
                                               const std::vector<FieldToWrite<float>>&, const Grid&,
                                               const AfterFirstField&, Durability);
template std::uint64_t write_field_file<double>(MPI_Comm, const std::filesystem::path&, const FieldFileHeader&,
                                                const std::vector<FieldToWrite<double>>&, const Grid&,
                                                const AfterFirstField&, Durability);

}  // namespace wave3d::io
