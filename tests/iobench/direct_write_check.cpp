// Writes the same fields with the collective HDF5 writer and with the NUMA-aware direct writer, on
// every rank of the job and for several process grids, and checks on rank 0 that each pair of
// datasets is bitwise equal (check_direct_write.py then reads the files with h5py).
//
// usage: mpiexec -n N direct_write_check --dir DIR [--io-threads K]
// Files: DIR/<grid>-<writer>-<type>.h5 with grid "auto" or "x-split", writer "collective" or "direct",
// type "float" or "double"; dataset "wavefield", values (x + 64 y + 4096 z) / 2 except (1,1,1) = -0
// and (2,2,2) = a NaN with a payload.
#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "field/field.hpp"
#include "io/direct/direct_field_file.hpp"
#include "io/hdf5/field_file_writer.hpp"
#include "io/hdf5/grid_dataset.hpp"
#include "mpi/collective.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/environment.hpp"

namespace {

using namespace wave3d;

constexpr char kDataset[] = "wavefield";

template <typename T>
T value_at(std::int64_t x, std::int64_t y, std::int64_t z) {
  if (x == 1 && y == 1 && z == 1) return -T(0);
  if (x == 2 && y == 2 && z == 2) {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    Bits bits;
    const T quiet = std::numeric_limits<T>::quiet_NaN();
    std::memcpy(&bits, &quiet, sizeof(T));
    bits |= 0x5;  // a payload, so only a bitwise copy keeps it
    T nan;
    std::memcpy(&nan, &bits, sizeof(T));
    return nan;
  }
  return static_cast<T>(x + 64 * y + 4096 * z) / 2;
}

template <typename T>
Field<T> make_field(const Box& owned) {
  Field<T> f(owned, 2);
  // Halo and padding hold a value no owned point has: writing them by mistake shows.
  std::fill(f.data(), f.data() + f.allocated_elements(), T(777.25));
  for (std::int64_t z = owned.lo[2]; z < owned.hi[2]; ++z)
    for (std::int64_t y = owned.lo[1]; y < owned.hi[1]; ++y)
      for (std::int64_t x = owned.lo[0]; x < owned.hi[0]; ++x) f.at(x, y, z) = value_at<T>(x, y, z);
  return f;
}

io::FieldFileHeader header_for(const Index3& n, const char* precision) {
  io::FieldFileHeader h;
  h.format = std::string(io::kSnapshotFormat);
  h.step = 7;
  h.dt = 0.001;
  h.time = 0.007;
  h.spacing = 10.0;
  h.stencil_radius = 2;
  h.grid_n = n;
  h.precision = precision;
  h.boundary = "periodic";
  h.config_json = "{}";
  h.provenance_json = "{}";
  return h;
}

std::vector<unsigned char> read_raw(const std::filesystem::path& file, std::size_t bytes) {
  std::vector<unsigned char> out(bytes);
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + file.string());
  const hid_t d = H5Dopen2(f, kDataset, H5P_DEFAULT);
  const hid_t type = d >= 0 ? H5Dget_type(d) : -1;
  const herr_t rc = d >= 0 ? H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) : -1;
  if (type >= 0) H5Tclose(type);
  if (d >= 0) H5Dclose(d);
  H5Fclose(f);
  if (rc < 0) throw std::runtime_error("cannot read the dataset of " + file.string());
  return out;
}

template <typename T>
bool write_and_compare(MPI_Comm comm, const std::filesystem::path& dir, const std::string& grid_name,
                       const mpi::Decomposition& d, int io_threads, const char* type_name) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const Grid grid{d.global_n, 10.0, Boundary::periodic, 2};
  const Field<T> u = make_field<T>(d.box_of(rank));
  const io::FieldFileHeader header = header_for(d.global_n, sizeof(T) == 4 ? "single" : "double");
  const std::vector<io::FieldToWrite<T>> fields{{kDataset, &u, 7}};
  const auto collective = dir / fmt::format("{}-collective-{}.h5", grid_name, type_name);
  const auto direct = dir / fmt::format("{}-direct-{}.h5", grid_name, type_name);
  io::write_field_file<T>(comm, collective, header, fields, grid);
  const io::DirectWriteReport report =
      io::write_field_file_direct<T>(comm, direct, header, fields, grid,
                                     io::DirectWriteOptions{.io_threads = io_threads, .bind = true});
  bool equal = true;
  if (rank == 0) {
    const std::size_t bytes = static_cast<std::size_t>(grid.whole().volume()) * sizeof(T);
    equal = read_raw(collective, bytes) == read_raw(direct, bytes);
    std::printf("%s %s (process grid %dx%dx%d): %s; direct write: %llu bytes, up to %d I/O threads per rank\n",
                grid_name.c_str(), type_name, d.dims[0], d.dims[1], d.dims[2],
                equal ? "datasets bitwise equal" : "DATASETS DIFFER", static_cast<unsigned long long>(report.bytes),
                report.io_threads_max);
  }
  return mpi::allreduce_and(comm, equal);
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Environment env(&argc, &argv, MPI_THREAD_MULTIPLE);
  std::filesystem::path dir;
  int io_threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--dir") dir = argv[i + 1];
    if (key == "--io-threads") io_threads = std::stoi(argv[i + 1]);
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: direct_write_check --dir DIR [--io-threads K]\n");
    return 2;
  }
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int ranks = env.world_size();
  try {
    if (env.world_rank() == 0) std::filesystem::create_directories(dir);
    MPI_Barrier(comm);
    // Uneven sizes; "x-split" cuts the rows, so no two rows of a rank follow each other in the file.
    const Index3 n{45, 30, 22};
    bool ok = true;
    const std::vector<std::pair<std::string, mpi::Dims3>> grids{{"auto", {0, 0, 0}}, {"x-split", {ranks, 1, 1}}};
    for (const auto& [name, dims] : grids) {
      const mpi::Decomposition d = mpi::decompose(n, ranks, dims, 2);
      ok = write_and_compare<float>(comm, dir, name, d, io_threads, "float") && ok;
      ok = write_and_compare<double>(comm, dir, name, d, io_threads, "double") && ok;
    }
    return ok ? 0 : 1;
  } catch (const mpi::CollectiveError& e) {
    if (env.world_rank() == 0) std::fprintf(stderr, "direct_write_check: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    mpi::abort_job(comm, e.what());
  }
}
