#include "io/hdf5/snapshot_writer.hpp"

#include <fmt/format.h>

#include "io/hdf5/field_file_writer.hpp"
#include "mpi/collective.hpp"
#include "output/result_files.hpp"

namespace wave3d::io {

std::string snapshot_file_name(std::int64_t step) { return fmt::format("wavefield_{:06d}.h5", step); }

template <typename T>
SnapshotWriter<T>::SnapshotWriter(MPI_Comm comm, std::filesystem::path directory, FieldFileHeader header, Grid grid)
    : comm_(comm), directory_(std::move(directory)), header_(std::move(header)), grid_(grid) {
  header_.format = std::string(kSnapshotFormat);
}

template <typename T>
std::uint64_t SnapshotWriter<T>::write(const Field<T>& u, std::int64_t step) {
  FieldFileHeader h = header_;
  h.step = step;
  h.time = static_cast<double>(step) * h.dt;
  const std::string name = snapshot_file_name(step);
  const std::uint64_t bytes =
      file_writer_ ? file_writer_(comm_, directory_ / name, h, {{kSnapshotDataset, &u, step}}, grid_)
                   : write_field_file<T>(comm_, directory_ / name, h, {{kSnapshotDataset, &u, step}}, grid_, {},
                                         Durability::job_crash);
  files_.push_back(directory_ / name);
  frames_.push_back({name, std::string("/") + kSnapshotDataset, step, h.time});
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  mpi::collectively(comm_, [&] {
    if (rank == 0)
      write_file_atomically(sidecar(), format_xdmf(frames_, h.grid_n, h.spacing, sizeof(T), kSnapshotDataset));
  });
  return bytes;
}

template <typename T>
void SnapshotWriter<T>::continue_series(std::vector<XdmfFrame> earlier) {
  earlier.insert(earlier.end(), frames_.begin(), frames_.end());
  frames_ = std::move(earlier);
}

template class SnapshotWriter<float>;
template class SnapshotWriter<double>;

}  // namespace wave3d::io
