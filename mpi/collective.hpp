#pragma once
// Collective error handling and small collectives. Two ways an error ends a job:
//  - at a checkpoint every rank reaches (set-up, verification): agree_on_error() lets the first failing
//    rank's message travel to rank 0, which prints it once; every rank then exits non-zero cleanly;
//  - anywhere else (a rank alone fails while others may wait on it): abort_job() prints the message
//    from that rank and calls MPI_Abort, so nobody waits forever.
#include <mpi.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wave3d::mpi {

// Thrown on every rank by agree_on_error when some rank failed; message() is the failing rank's text.
class CollectiveError : public std::runtime_error {
 public:
  CollectiveError(const std::string& message, int failing_rank)
      : std::runtime_error(message), failing_rank_(failing_rank) {}
  int failing_rank() const { return failing_rank_; }

 private:
  int failing_rank_;
};

// Collective over comm. If any rank passes an error, every rank throws CollectiveError carrying the
// message of the lowest failing rank. Otherwise returns normally on every rank.
void agree_on_error(MPI_Comm comm, const std::optional<std::string>& local_error);

// agree_on_error for collectively(): where this rank failed and the agreement itself fails (another
// rank was still inside a collective of fn(), so the two met in calls of different sizes), the job
// is aborted with this rank's own error rather than the MPI error that would hide it.
void agree_on_error_of_block(MPI_Comm comm, const std::optional<std::string>& local_error);

// Runs fn() on every rank; an exception on any rank becomes a CollectiveError on all of them.
template <typename Fn>
auto collectively(MPI_Comm comm, Fn&& fn) -> decltype(fn()) {
  std::optional<std::string> error;
  if constexpr (std::is_void_v<decltype(fn())>) {
    try {
      fn();
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree_on_error_of_block(comm, error);
  } else {
    decltype(fn()) result{};
    try {
      result = fn();
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree_on_error_of_block(comm, error);
    return result;
  }
}

// Prints "wave3d: error on rank R: message" to stderr and aborts every rank of comm with exit code 1.
[[noreturn]] void abort_job(MPI_Comm comm, const std::string& message);

// Gathers one string from every rank; on root the result holds them in rank order, elsewhere it is empty.
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine, int root);

// This rank's number among the ranks sharing its node, and how many share it (MPI_Comm_split_type).
struct NodeRank {
  int rank = 0;
  int size = 1;
  int leader = 0;  // the rank in comm of the node's first rank: names the node
};
NodeRank rank_on_node(MPI_Comm comm);

// Broadcasts a string from root.
std::string broadcast_string(MPI_Comm comm, const std::string& value, int root);

double allreduce_max(MPI_Comm comm, double value);
double allreduce_min(MPI_Comm comm, double value);
double allreduce_sum(MPI_Comm comm, double value);
unsigned long long allreduce_sum_u64(MPI_Comm comm, unsigned long long value);  // wraps modulo 2^64
bool allreduce_and(MPI_Comm comm, bool value);

}  // namespace wave3d::mpi
