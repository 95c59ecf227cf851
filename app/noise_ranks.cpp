#include "app/noise_ranks.hpp"

#include <nlohmann/json.hpp>

#include <string>

#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "probe/noise_cpus.hpp"
#include "probe/noise_json.hpp"

namespace wave3d::app {

std::vector<int> share_cpus_on_node(MPI_Comm comm, const std::vector<int>& wanted) {
  MPI_Comm node = MPI_COMM_NULL;
  mpi::check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  // Node rank 0 splits the lists and sends every rank its share, all in one JSON text.
  const std::vector<std::string> lists = mpi::gather_strings(node, nlohmann::json(wanted).dump(), 0);
  std::string shares;
  if (node_rank == 0) {
    std::vector<std::vector<int>> all;
    for (const std::string& text : lists) all.push_back(nlohmann::json::parse(text).get<std::vector<int>>());
    shares = nlohmann::json(share_cpus_among_ranks(all)).dump();
  }
  shares = mpi::broadcast_string(node, shares, 0);
  MPI_Comm_free(&node);
  return nlohmann::json::parse(shares).at(static_cast<std::size_t>(node_rank)).get<std::vector<int>>();
}

std::vector<RankNoise> gather_rank_noise(MPI_Comm comm, const RankNoise& mine, int root) {
  const std::vector<std::string> texts = mpi::gather_strings(comm, nlohmann::json(mine).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), root);
  std::vector<RankNoise> all;
  all.reserve(texts.size());
  for (const std::string& text : texts) all.push_back(nlohmann::json::parse(text).get<RankNoise>());
  return all;
}

}  // namespace wave3d::app
