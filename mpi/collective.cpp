#include "mpi/collective.hpp"

#include <cstdio>
#include <vector>

#include "mpi/environment.hpp"

namespace wave3d::mpi {

void agree_on_error(MPI_Comm comm, const std::optional<std::string>& local_error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = local_error ? rank : size;
  int first = size;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return;
  const std::string message = broadcast_string(comm, local_error ? *local_error : std::string(), first);
  throw CollectiveError(message, first);
}

void agree_on_error_of_block(MPI_Comm comm, const std::optional<std::string>& local_error) {
  try {
    agree_on_error(comm, local_error);
  } catch (const CollectiveError&) {
    throw;
  } catch (const std::exception& e) {
    if (!local_error) throw;
    abort_job(comm, *local_error + " (then agreeing on the error failed: " + e.what() + ")");
  }
}

void abort_job(MPI_Comm comm, const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::fprintf(stderr, "wave3d: error on rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::_Exit(1);  // MPI_Abort does not return; this keeps the promise of [[noreturn]] regardless
}

std::string broadcast_string(MPI_Comm comm, const std::string& value, int root) {
  unsigned long long length = value.size();
  check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm), "MPI_Bcast");
  std::string out = value;
  out.resize(length);
  if (length > 0) check(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, root, comm), "MPI_Bcast");
  return out;
}

NodeRank rank_on_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  NodeRank r;
  MPI_Comm_rank(node, &r.rank);
  MPI_Comm_size(node, &r.size);
  int mine = 0;
  MPI_Comm_rank(comm, &mine);
  r.leader = mine;
  check(MPI_Bcast(&r.leader, 1, MPI_INT, 0, node), "MPI_Bcast");
  MPI_Comm_free(&node);
  return r;
}

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine, int root) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == root ? size : 0);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm), "MPI_Gather");
  std::vector<int> offsets(lengths.size(), 0);
  std::string all;
  if (rank == root) {
    for (std::size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(static_cast<std::size_t>(offsets.empty() ? 0 : offsets.back() + lengths.back()));
  }
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, root, comm),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

namespace {
template <typename T>
T allreduce(MPI_Comm comm, T value, MPI_Datatype type, MPI_Op op) {
  T out{};
  check(MPI_Allreduce(&value, &out, 1, type, op, comm), "MPI_Allreduce");
  return out;
}
}  // namespace

double allreduce_max(MPI_Comm comm, double v) { return allreduce(comm, v, MPI_DOUBLE, MPI_MAX); }
double allreduce_min(MPI_Comm comm, double v) { return allreduce(comm, v, MPI_DOUBLE, MPI_MIN); }
double allreduce_sum(MPI_Comm comm, double v) { return allreduce(comm, v, MPI_DOUBLE, MPI_SUM); }
unsigned long long allreduce_sum_u64(MPI_Comm comm, unsigned long long v) {
  return allreduce(comm, v, MPI_UNSIGNED_LONG_LONG, MPI_SUM);
}
bool allreduce_and(MPI_Comm comm, bool v) { return allreduce(comm, v ? 1 : 0, MPI_INT, MPI_LAND) != 0; }

}  // namespace wave3d::mpi
