#pragma once
// Helpers shared by the MPI tests: process grids to try for a rank count, a directory every rank
// sees, and failures made collective so that rank 0 (the only rank that prints) reports what went
// wrong on any rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "geometry/box.hpp"
#include "mpi/collective.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/environment.hpp"
#include "../output/temp_dir.hpp"

namespace wave3d::mpi::testing {

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Every px * py * pz = ranks, in a fixed order (the same on every rank: tests loop over them in step).
inline std::vector<Dims3> all_process_grids(int ranks) {
  std::vector<Dims3> grids;
  for (int px = 1; px <= ranks; ++px)
    for (int py = 1; py <= ranks / px; ++py)
      if (ranks % (px * py) == 0) grids.push_back({px, py, ranks / (px * py)});
  return grids;
}

// Whether every subdomain along every cut axis is at least `radius` thick (halos come from the
// immediate neighbour only).
inline bool thick_enough(const Index3& n, const Dims3& dims, int radius) {
  for (int a = 0; a < 3; ++a)
    if (dims[a] > 1 && n[a] / dims[a] < radius) return false;
  return true;
}

// i wrapped into [0, n): the owned point a periodic ghost cell mirrors.
inline std::int64_t wrap(std::int64_t i, std::int64_t n) { return ((i % n) + n) % n; }

inline std::string text(const Index3& v) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}
inline std::string text(const Dims3& v) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}
// The periodicities (x, y, z) the halo exchange tests try.
using Periodic = std::array<bool, 3>;
inline constexpr Periodic kPeriodicities[] = {
    {false, false, false}, {true, true, true}, {true, false, true}, {false, true, false}};

// What the exchange tests put in every cell an exchange may fill, and what stays beyond a zero boundary.
inline constexpr double kSentinel = -1.0;

// A distinct value per global point and tag (an exchange's step or a field), exact in float (below
// 2^24) while every axis stays below 64.
template <typename T>
T value_at(const Index3& p, int tag) {
  return static_cast<T>(p[0] + 64 * (p[1] + 64 * (p[2] + 64 * static_cast<std::int64_t>(tag))));
}

inline std::string text(const std::array<bool, 3>& p) {
  std::string s = "periodic(";
  for (int a = 0; a < 3; ++a) s += p[static_cast<std::size_t>(a)] ? (a ? ",1" : "1") : (a ? ",0" : "0");
  return s + ")";
}

// A fresh directory shared by the ranks of comm: rank 0's TempDir (named after the current test and
// rank 0's pid), its path broadcast; removed once every rank is done with it.
class SharedTempDir {
 public:
  explicit SharedTempDir(MPI_Comm comm) : comm_(comm) {
    if (mpi::rank_in(comm) == 0) owner_.emplace();
    path_ = mpi::broadcast_string(comm, owner_ ? owner_->path().string() : std::string(), 0);
  }
  ~SharedTempDir() { MPI_Barrier(comm_); }  // then rank 0's owner_ removes it
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  MPI_Comm comm_;
  std::optional<wave3d::testing::TempDir> owner_;  // rank 0 only
  std::filesystem::path path_;
};

// Collects a rank's mismatches: the first few in full, the rest counted.
class Mismatches {
 public:
  explicit Mismatches(std::string context) : context_(std::move(context)) {}
  void add(const std::string& what) {
    if (count_++ < kShown) shown_ += "\n  " + what;
  }
  std::optional<std::string> summary() const {
    if (count_ == 0) return std::nullopt;
    return context_ + ": " + std::to_string(count_) + " mismatches" + shown_;
  }

 private:
  static constexpr long kShown = 5;
  std::string context_;
  std::string shown_;
  long count_ = 0;
};

// Collective over comm: fails the current test on every rank if any rank reports an error, with the
// lowest failing rank's message (so rank 0 prints it). Returns true when nobody failed.
inline bool agree_nobody_failed(MPI_Comm comm, const std::optional<std::string>& local_error) {
  try {
    agree_on_error(comm, local_error);
    return true;
  } catch (const CollectiveError& e) {
    ADD_FAILURE() << "rank " << e.failing_rank() << ": " << e.what();
    return false;
  }
}

}  // namespace wave3d::mpi::testing
