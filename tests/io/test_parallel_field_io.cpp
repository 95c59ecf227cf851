// Parallel HDF5 field I/O under mpiexec (1, 2 and 4 ranks). Each rank writes its owned box of a field
// whose values are a function of the global index into one dataset, collectively; the file is read
// back with a different process grid (every owned point must hold its value, the halo must be
// untouched) and by rank 0 alone as one whole array. Also: attributes, the file header, snapshots
// with their sidecar, checkpoints (both levels, their checksums, damage detection, and the previous
// file surviving a writer that stops halfway).
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/field_file_header.hpp"
#include "io/hdf5/grid_dataset.hpp"
#include "io/hdf5/parallel_file.hpp"
#include "io/hdf5/snapshot_writer.hpp"
#include "io_test_support.hpp"
#include "mpi/decomposition.hpp"
#include "mpi_test_support.hpp"
#include "verify/field_checks.hpp"

namespace {

using namespace wave3d;
using namespace wave3d::io;
using wave3d::io::testing::blank_field;
using wave3d::io::testing::filled_field;
using wave3d::io::testing::kSentinel;
using wave3d::io::testing::SharedTempDir;
using wave3d::io::testing::value_at;
namespace t = wave3d::mpi::testing;

const MPI_Comm kWorld = MPI_COMM_WORLD;

struct Shape {
  Index3 n;
  int halo;
};
constexpr Shape kShapes[] = {{{23, 17, 13}, 2}, {{40, 36, 33}, 4}};

Box owned_by_this_rank(const Index3& n, const mpi::Dims3& dims, int halo) {
  return mpi::decompose(n, t::world_size(), dims, halo).box_of(t::world_rank());
}

// Every point of `box` of f holds value_at(salt), every other allocated element the sentinel.
template <typename T>
void expect_box_values(const Field<T>& f, const Box& box, int salt, t::Mismatches& bad) {
  const Box all = f.with_halo();
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x) {
        const T want = box.contains({x, y, z}) ? value_at<T>(x, y, z, salt) : static_cast<T>(kSentinel);
        if (f.at(x, y, z) != want) bad.add(fmt::format("({},{},{}) = {}, expected {}", x, y, z, f.at(x, y, z), want));
      }
}

// Rank 0 alone reads the whole dataset into a plain array and checks every value.
template <typename T>
std::optional<std::string> check_whole_file(const std::filesystem::path& path, const std::string& name, const Index3& n,
                                            int salt) {
  if (t::world_rank() != 0) return std::nullopt;
  const Hid file = open_parallel_file(MPI_COMM_SELF, path);
  const Hid dataset = open_grid_dataset(file.get(), name);
  const GridDatasetShape shape = grid_dataset_shape(dataset.get(), name);
  if (shape.n != n || shape.value_bytes != sizeof(T) || !shape.floating_point)
    return "dataset shape " + t::text(shape.n) + " of " + std::to_string(shape.value_bytes) + "-byte values";
  std::vector<T> all(static_cast<std::size_t>(box_from_extents(n).volume()));
  read_box<T>(dataset.get(), StridedBox<T>{all.data(), box_from_extents(n), 0, n[0], n[0] * n[1]});
  t::Mismatches bad("whole file read by rank 0");
  std::size_t i = 0;
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x, ++i)
        if (all[i] != value_at<T>(x, y, z, salt)) bad.add(fmt::format("value at ({},{},{})", x, y, z));
  return bad.summary();
}

template <typename T>
void round_trip_across_decompositions() {
  const SharedTempDir dir(kWorld);
  const std::vector<mpi::Dims3> grids = t::all_process_grids(t::world_size());
  int file_index = 0;
  for (const Shape& shape : kShapes)
    for (std::size_t g = 0; g < grids.size(); ++g) {
      const mpi::Dims3 write_dims = grids[g], read_dims = grids[(g + 1) % grids.size()];
      if (!t::thick_enough(shape.n, write_dims, shape.halo) || !t::thick_enough(shape.n, read_dims, shape.halo)) continue;
      const std::string context = fmt::format("{} halo {}, written by {}, read by {}", t::text(shape.n), shape.halo,
                                              t::text(write_dims), t::text(read_dims));
      const std::filesystem::path path = dir.path() / ("grid" + std::to_string(file_index++) + ".h5");
      const int salt = file_index;
      {
        const Field<T> written = filled_field<T>(owned_by_this_rank(shape.n, write_dims, shape.halo), shape.halo, salt);
        Hid file = create_parallel_file(kWorld, path);
        Hid dataset = create_grid_dataset<T>(file.get(), "u", shape.n);
        write_box<T>(dataset.get(), owned_box(written));
      }
      Field<T> read = blank_field<T>(owned_by_this_rank(shape.n, read_dims, shape.halo), shape.halo);
      {
        const Hid file = open_parallel_file(kWorld, path);
        const Hid dataset = open_grid_dataset(file.get(), "u");
        read_box<T>(dataset.get(), owned_box(read));
      }
      t::Mismatches bad(context);
      expect_box_values(read, read.owned(), salt, bad);
      if (!t::agree_nobody_failed(kWorld, bad.summary())) return;

      // The owned box and the halo cells inside the grid, in one read: the halo filled from the file.
      Field<T> with_halo = blank_field<T>(read.owned(), shape.halo);
      const Box region = intersect(with_halo.with_halo(), box_from_extents(shape.n));
      {
        const Hid file = open_parallel_file(kWorld, path);
        const Hid dataset = open_grid_dataset(file.get(), "u");
        read_box<T>(dataset.get(), strided_box(with_halo, region));
      }
      t::Mismatches bad_halo(context + ", halo included");
      expect_box_values(with_halo, region, salt, bad_halo);
      if (!t::agree_nobody_failed(kWorld, bad_halo.summary())) return;
      if (!t::agree_nobody_failed(kWorld, check_whole_file<T>(path, "u", shape.n, salt))) return;
    }
}

TEST(GridDataset, RoundTripAcrossDecompositionsFloat) { round_trip_across_decompositions<float>(); }
TEST(GridDataset, RoundTripAcrossDecompositionsDouble) { round_trip_across_decompositions<double>(); }

TEST(GridDataset, IsOneContiguousBlockOfTheFile) {
  const SharedTempDir dir(kWorld);
  const Hid file = create_parallel_file(kWorld, dir.path() / "contiguous.h5");
  const Hid dataset = create_grid_dataset<float>(file.get(), "u", {8, 4, 2});
  EXPECT_GT(contiguous_data_offset(dataset.get(), "u"), 0u);
}

TEST(Attributes, RoundTripEveryKind) {
  const SharedTempDir dir(kWorld);
  const std::filesystem::path path = dir.path() / "attributes.h5";
  // Larger than the 64 KiB an object header holds: stored densely.
  const std::string large(100000, 'x');
  {
    const Hid file = create_parallel_file(kWorld, path);
    write_int_attribute(file.get(), "int", -42);
    write_uint64_attribute(file.get(), "u64", 0xfedcba9876543210ull);
    write_real_attribute(file.get(), "real", 0.1);
    write_text_attribute(file.get(), "text", "grid \"n\" <&>");
    write_text_attribute(file.get(), "empty", "");
    write_text_attribute(file.get(), "large", large);
    write_int3_attribute(file.get(), "int3", {3, 2, 1});
  }
  const Hid file = open_parallel_file(kWorld, path);
  EXPECT_EQ(read_int_attribute(file.get(), "int"), -42);
  EXPECT_EQ(read_uint64_attribute(file.get(), "u64"), 0xfedcba9876543210ull);
  EXPECT_EQ(read_real_attribute(file.get(), "real"), 0.1);
  EXPECT_EQ(read_text_attribute(file.get(), "text"), "grid \"n\" <&>");
  EXPECT_EQ(read_text_attribute(file.get(), "empty"), "");
  EXPECT_EQ(read_text_attribute(file.get(), "large"), large);
  EXPECT_EQ(read_int3_attribute(file.get(), "int3"), (Index3{3, 2, 1}));
  EXPECT_TRUE(has_attribute(file.get(), "int"));
  EXPECT_FALSE(has_attribute(file.get(), "absent"));
  try {
    (void)read_int_attribute(file.get(), "absent");
    ADD_FAILURE() << "no error for a missing attribute";
  } catch (const Hdf5Error& e) {
    EXPECT_NE(std::string(e.what()).find("attribute 'absent' is missing"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_int_attribute(file.get(), "text"), Hdf5Error);
}

RunConfig small_config(const Index3& n, int radius, Precision precision) {
  RunConfig c;
  c.grid.n = n;
  c.grid.radius = radius;
  c.precision = precision;
  c.steps = 50;
  return c;
}

TEST(FieldFileHeader, RoundTrip) {
  const SharedTempDir dir(kWorld);
  const RunConfig config = small_config({23, 17, 13}, 2, Precision::double_);
  const FieldFileHeader h = field_file_header(kCheckpointFormat, config, 12, R"({"wave3d_version": "x"})");
  EXPECT_EQ(h.time, 12 * config.physics.dt);
  {
    const Hid file = create_parallel_file(kWorld, dir.path() / "header.h5");
    write_header(file.get(), h);
  }
  const Hid file = open_parallel_file(kWorld, dir.path() / "header.h5");
  const FieldFileHeader r = read_header(file.get());
  EXPECT_EQ(r.format, "wave3d-checkpoint");
  EXPECT_EQ(r.format_version, kFieldFileVersion);
  EXPECT_EQ(r.step, 12);
  EXPECT_EQ(r.time, h.time);
  EXPECT_EQ(r.dt, config.physics.dt);
  EXPECT_EQ(r.spacing, config.grid.spacing);
  EXPECT_EQ(r.stencil_radius, 2);
  EXPECT_EQ(r.grid_n, (Index3{23, 17, 13}));
  EXPECT_EQ(r.precision, "double");
  EXPECT_EQ(r.boundary, "periodic");
  EXPECT_EQ(r.config_json, h.config_json);
  EXPECT_EQ(r.provenance_json, h.provenance_json);
}

TEST(Snapshot, FilesAndSidecar) {
  const SharedTempDir dir(kWorld);
  const RunConfig config = small_config({23, 17, 13}, 2, Precision::single);
  const Box owned = owned_by_this_rank(config.grid.n, {0, 0, 0}, 2);
  SnapshotWriter<float> writer(kWorld, dir.path(), field_file_header(kSnapshotFormat, config, 0, "{}"), config.grid);
  for (int step : {10, 20}) {
    const Field<float> u = filled_field<float>(owned, 2, step);
    writer.write(u, step);
    const std::uint64_t checksum =
        mpi::allreduce_sum_u64(kWorld, field_checksum(u, u.owned(), config.grid));
    const std::filesystem::path path = dir.path() / snapshot_file_name(step);
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
    const Hid file = open_parallel_file(kWorld, path);
    EXPECT_EQ(read_text_attribute(file.get(), "format"), "wave3d-snapshot");
    EXPECT_EQ(read_int_attribute(file.get(), "step"), step);
    const Hid dataset = open_grid_dataset(file.get(), kSnapshotDataset);
    EXPECT_EQ(read_uint64_attribute(dataset.get(), "checksum"), checksum);
    EXPECT_EQ(read_int_attribute(dataset.get(), "time_level"), step);
    if (!t::agree_nobody_failed(kWorld, check_whole_file<float>(path, kSnapshotDataset, config.grid.n, step))) return;
  }
  EXPECT_EQ(writer.files().size(), 2u);
  std::ifstream in(writer.sidecar());
  std::stringstream xml;
  xml << in.rdbuf();
  EXPECT_NE(xml.str().find("wavefield_000010.h5:/wavefield"), std::string::npos) << xml.str();
  EXPECT_NE(xml.str().find("wavefield_000020.h5:/wavefield"), std::string::npos) << xml.str();
  EXPECT_NE(xml.str().find("Dimensions=\"13 17 23\""), std::string::npos) << xml.str();
}

// A rank's config may hold values of its own (its progress core, its node's threads): the ranks'
// headers then differ, and the file records rank 0's, written alike by every rank as HDF5 wants.
TEST(Checkpoint, RanksWithTheirOwnConfigWriteRankZerosHeader) {
  const SharedTempDir dir(kWorld);
  RunConfig config = small_config({23, 17, 13}, 2, Precision::single);
  const Box owned = owned_by_this_rank(config.grid.n, {0, 0, 0}, 2);
  config.threads = 1;
  const FieldFileHeader first = field_file_header(kCheckpointFormat, config, 5, "{}");  // rank 0's
  config.threads = 1 + 16 * t::world_rank();  // a longer text on the other ranks
  FieldFileHeader mine = field_file_header(kCheckpointFormat, config, 5, t::world_rank() == 0 ? "{}" : "{\"rank\": 1}");
  const std::filesystem::path path = dir.path() / "own_config.h5";
  write_checkpoint<float>(kWorld, path, mine, filled_field<float>(owned, 2, 1), filled_field<float>(owned, 2, 2),
                          config.grid);
  const CheckpointReader reader(kWorld, path);
  EXPECT_EQ(reader.header().config_json, first.config_json);
  EXPECT_EQ(reader.header().provenance_json, "{}");
}

template <typename T>
void checkpoint_round_trip() {
  const SharedTempDir dir(kWorld);
  const RunConfig config = small_config({40, 36, 33}, 4, sizeof(T) == 4 ? Precision::single : Precision::double_);
  const std::vector<mpi::Dims3> grids = t::all_process_grids(t::world_size());
  const std::filesystem::path path = dir.path() / checkpoint_file_name(30);
  {
    const Box owned = owned_by_this_rank(config.grid.n, grids.front(), 4);
    const Field<T> current = filled_field<T>(owned, 4, 1), previous = filled_field<T>(owned, 4, 2);
    const std::uint64_t bytes = write_checkpoint<T>(kWorld, path, field_file_header(kSnapshotFormat, config, 30, "{}"),
                                                    current, previous, config.grid);
    EXPECT_EQ(bytes, 2u * 40 * 36 * 33 * sizeof(T));
  }
  const Box owned = owned_by_this_rank(config.grid.n, grids.back(), 4);
  Field<T> current = blank_field<T>(owned, 4), previous = blank_field<T>(owned, 4);
  CheckpointReader reader(kWorld, path);
  EXPECT_EQ(reader.header().format, "wave3d-checkpoint");
  EXPECT_EQ(reader.header().step, 30);
  EXPECT_EQ(reader.shape().n, config.grid.n);
  EXPECT_EQ(reader.shape().value_bytes, sizeof(T));
  reader.read(current, previous, config.grid);
  t::Mismatches bad("checkpoint read by " + t::text(grids.back()));
  expect_box_values(current, owned, 1, bad);
  expect_box_values(previous, owned, 2, bad);
  t::agree_nobody_failed(kWorld, bad.summary());
}

TEST(Checkpoint, RoundTripOnAnotherProcessGridFloat) { checkpoint_round_trip<float>(); }
TEST(Checkpoint, RoundTripOnAnotherProcessGridDouble) { checkpoint_round_trip<double>(); }

// Rank 0 overwrites `bytes` at the start of dataset `name`'s values with `byte`.
void damage_dataset(const std::filesystem::path& path, const std::string& name, std::size_t bytes, char byte) {
  if (t::world_rank() == 0) {
    std::uint64_t offset = 0;
    {
      const Hid file = open_parallel_file(MPI_COMM_SELF, path);
      offset = contiguous_data_offset(open_grid_dataset(file.get(), name).get(), name);
    }
    const int fd = ::open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    const std::string garbage(bytes, byte);
    ASSERT_EQ(::pwrite(fd, garbage.data(), garbage.size(), static_cast<off_t>(offset)),
              static_cast<ssize_t>(garbage.size()));
    ::close(fd);
  }
  MPI_Barrier(kWorld);
}

TEST(Checkpoint, DamagedValuesAreCaughtByTheChecksum) {
  const SharedTempDir dir(kWorld);
  const RunConfig config = small_config({23, 17, 13}, 2, Precision::single);
  const Box owned = owned_by_this_rank(config.grid.n, {0, 0, 0}, 2);
  const std::filesystem::path path = dir.path() / "damaged.h5";
  write_checkpoint<float>(kWorld, path, field_file_header(kCheckpointFormat, config, 5, "{}"),
                          filled_field<float>(owned, 2, 1), filled_field<float>(owned, 2, 2), config.grid);
  damage_dataset(path, kPreviousDataset, 8, '\x7f');
  Field<float> current = blank_field<float>(owned, 2), previous = blank_field<float>(owned, 2);
  CheckpointReader reader(kWorld, path);
  try {
    reader.read(current, previous, config.grid);
    ADD_FAILURE() << "damaged values were read without complaint";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("values of dataset 'previous' are damaged"), std::string::npos) << e.what();
  }
}

TEST(Checkpoint, WriterStoppedHalfwayLeavesThePreviousFile) {
  const SharedTempDir dir(kWorld);
  const RunConfig config = small_config({23, 17, 13}, 2, Precision::single);
  const Box owned = owned_by_this_rank(config.grid.n, {0, 0, 0}, 2);
  const std::filesystem::path path = dir.path() / "checkpoint.h5";
  write_checkpoint<float>(kWorld, path, field_file_header(kCheckpointFormat, config, 5, "{}"),
                          filled_field<float>(owned, 2, 1), filled_field<float>(owned, 2, 2), config.grid);
  struct Stopped {};
  try {
    write_checkpoint<float>(kWorld, path, field_file_header(kCheckpointFormat, config, 10, "{}"),
                            filled_field<float>(owned, 2, 3), filled_field<float>(owned, 2, 4), config.grid,
                            [](const std::filesystem::path&) { throw Stopped{}; });
    ADD_FAILURE() << "the hook did not stop the writer";
  } catch (const Stopped&) {
  }
  // A write that fails removes its temporary (a writer killed outright leaves it: io_killed_checkpoint_*);
  // the previous checkpoint keeps its name and its values either way.
  MPI_Barrier(kWorld);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  Field<float> current = blank_field<float>(owned, 2), previous = blank_field<float>(owned, 2);
  CheckpointReader reader(kWorld, path);
  EXPECT_EQ(reader.header().step, 5);
  reader.read(current, previous, config.grid);
  t::Mismatches bad("the surviving checkpoint");
  expect_box_values(current, owned, 1, bad);
  expect_box_values(previous, owned, 2, bad);
  t::agree_nobody_failed(kWorld, bad.summary());
}

// The error every rank gets from opening `path` as a checkpoint.
std::string checkpoint_error(const std::filesystem::path& path) {
  try {
    CheckpointReader reader(kWorld, path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Checkpoint, OtherFilesAreRefusedWithTheReason) {
  const SharedTempDir dir(kWorld);
  const RunConfig config = small_config({23, 17, 13}, 2, Precision::single);
  const Box owned = owned_by_this_rank(config.grid.n, {0, 0, 0}, 2);
  const std::filesystem::path text = dir.path() / "text.h5", snapshot = dir.path() / snapshot_file_name(5),
                              good = dir.path() / "good.h5", truncated = dir.path() / "truncated.h5";
  if (t::world_rank() == 0) std::ofstream(text) << "not an HDF5 file\n";
  SnapshotWriter<float>(kWorld, dir.path(), field_file_header(kSnapshotFormat, config, 0, "{}"), config.grid)
      .write(filled_field<float>(owned, 2, 1), 5);
  write_checkpoint<float>(kWorld, good, field_file_header(kCheckpointFormat, config, 5, "{}"),
                          filled_field<float>(owned, 2, 1), filled_field<float>(owned, 2, 2), config.grid);
  if (t::world_rank() == 0) {
    std::filesystem::copy_file(good, truncated);
    std::filesystem::resize_file(truncated, std::filesystem::file_size(good) / 2);
  }
  MPI_Barrier(kWorld);
  EXPECT_NE(checkpoint_error(text).find("not a readable HDF5 file"), std::string::npos) << checkpoint_error(text);
  EXPECT_NE(checkpoint_error(snapshot).find("a 'wave3d-snapshot' file, not a 'wave3d-checkpoint'"), std::string::npos)
      << checkpoint_error(snapshot);
  EXPECT_NE(checkpoint_error(truncated).find("truncated"), std::string::npos) << checkpoint_error(truncated);
  EXPECT_EQ(checkpoint_error(good), "no error");
}

}  // namespace
