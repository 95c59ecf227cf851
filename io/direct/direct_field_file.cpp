#include "io/direct/direct_field_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "io/hdf5/file_commit.hpp"
#include "io/hdf5/grid_dataset.hpp"
#include "io/hdf5/parallel_file.hpp"
#include "iobench/box_segments.hpp"
#include "iobench/node_aware_write.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"

namespace wave3d::io {
namespace {

// The dataset's raw data must be exactly the grid's values, in one block, in this file: anything else
// (a user block, external storage, another size) would make the offsets wrong.
std::uint64_t raw_data_offset(hid_t dataset, const std::string& name, std::uint64_t bytes) {
  const Hid dcpl(H5Dget_create_plist(dataset), H5Pclose, "cannot get the creation properties of '" + name + "'");
  if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS)
    throw Hdf5Error("dataset '" + name + "' is not contiguous, so it cannot be written directly");
  if (H5Pget_external_count(dcpl.get()) != 0)
    throw Hdf5Error("dataset '" + name + "' keeps its data in external files");
  if (H5Dget_storage_size(dataset) != bytes)
    throw Hdf5Error(fmt::format("dataset '{}' has {} bytes of storage allocated, not the {} of its values", name,
                                H5Dget_storage_size(dataset), bytes));
  return contiguous_data_offset(dataset, name);
}

void close_or_throw(int fd, const std::string& name) {
  if (::close(fd) != 0)
    throw std::runtime_error(fmt::format("closing {}: {}", name, std::generic_category().message(errno)));
}

}  // namespace

template <typename T>
DirectWriteReport write_field_file_direct(MPI_Comm comm, const std::filesystem::path& path,
                                          const FieldFileHeader& header, const std::vector<FieldToWrite<T>>& fields,
                                          const Grid& grid, const DirectWriteOptions& options) {
  const std::vector<std::uint64_t> checksums = global_field_checksums(comm, fields, grid);
  const std::filesystem::path temporary = temporary_path(path);
  const std::uint64_t dataset_bytes = static_cast<std::uint64_t>(box_from_extents(header.grid_n).volume()) * sizeof(T);
  mpi::collectively(comm, [&] {
    if (mpi::rank_in(comm) == 0) check_room_for(path, dataset_bytes * fields.size() + metadata_allowance(header));
  });
  DirectWriteReport report;
  NodeAwareWriteResult written;
  try {
    // 1. The file's structure, collectively; HDF5 errors are the same on every rank, so they agree.
    std::vector<std::uint64_t> offsets = mpi::collectively(comm, [&] {
      std::vector<std::uint64_t> found;
      Hid file = create_parallel_file(comm, temporary);
      create_field_datasets(comm, file.get(), temporary, header, fields, checksums, [&](hid_t dataset, std::size_t i) {
        found.push_back(raw_data_offset(dataset, fields[i].dataset, dataset_bytes));
      });
      file.close("cannot close '" + temporary.string() + "'");
      return found;
    });

    // 2. Every rank's rows, by its I/O threads. A failure on one rank becomes an error on all of them.
    written = mpi::collectively(comm, [&] {
      std::vector<WriteSegment> rows;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::vector<WriteSegment> r = box_rows_in_dataset(owned_rows(*fields[i].field), header.grid_n, offsets[i]);
        rows.insert(rows.end(), r.begin(), r.end());
      }
      const std::string name = temporary.string();
      const int fd = ::open(name.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0)
        throw std::runtime_error(fmt::format("cannot open {} to write the field directly: {}", name,
                                             std::generic_category().message(errno)));
      NodeAwareWriteResult result;
      try {
        const NodeAwareWriter writer;
        result = writer.write(fd, name, rows, NodeAwareWriteOptions{.threads = options.io_threads, .bind = options.bind});
        // On a parallel file system the other ranks' data must be on the servers before rank 0 publishes.
        if (::fsync(fd) != 0)
          throw std::runtime_error(fmt::format("fsync of {}: {}", name, std::generic_category().message(errno)));
      } catch (...) {
        ::close(fd);
        throw;
      }
      close_or_throw(fd, name);
      return result;
    });
  } catch (const mpi::CollectiveError&) {
    // Nothing half-written stays behind: the last complete file keeps its name either way.
    if (mpi::rank_in(comm) == 0) discard_temporary(temporary);
    throw;
  }

  // 3. Published once every rank's rows are in (collectively() above is the barrier).
  mpi::collectively(comm, [&] {
    if (mpi::rank_in(comm) == 0) publish_file(temporary, path);
  });
  report.bytes = dataset_bytes * fields.size();
  report.slowest_rank_seconds = mpi::allreduce_max(comm, written.seconds);
  report.io_threads_max =
      static_cast<int>(mpi::allreduce_max(comm, static_cast<double>(written.threads.size())));
  return report;
}

template DirectWriteReport write_field_file_direct<float>(MPI_Comm, const std::filesystem::path&,
                                                          const FieldFileHeader&,
                                                          const std::vector<FieldToWrite<float>>&, const Grid&,
                                                          const DirectWriteOptions&);
template DirectWriteReport write_field_file_direct<double>(MPI_Comm, const std::filesystem::path&,
                                                           const FieldFileHeader&,
                                                           const std::vector<FieldToWrite<double>>&, const Grid&,
                                                           const DirectWriteOptions&);

}  // namespace wave3d::io
