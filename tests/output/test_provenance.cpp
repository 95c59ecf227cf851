#include <gtest/gtest.h>

#include <cstdlib>

#include "output/provenance.hpp"

namespace wave3d {
namespace {

TEST(Provenance, HasTheFactsOfBuildMachineAndRun) {
  ::setenv("WAVE3D_TEST_MARKER", "42", 1);
  const MpiFacts mpi{"Open MPI v4.1.4", "MPI_THREAD_FUNNELED", 4};
  const auto started = std::chrono::system_clock::from_time_t(0);
  const nlohmann::json p = collect_provenance(mpi, {"wave3d", "run", "--steps", "10"}, started);

  EXPECT_FALSE(p.at("wave3d_version").get<std::string>().empty());
  ASSERT_TRUE(p.at("git").contains("commit"));
  EXPECT_FALSE(p["git"]["commit"].get<std::string>().empty());
  EXPECT_TRUE(p["git"]["dirty"].is_boolean() || p["git"]["dirty"].is_null());
  EXPECT_FALSE(p.at("build").at("compiler").at("id").get<std::string>().empty());
  EXPECT_FALSE(p["build"]["compiler"].at("version").get<std::string>().empty());
  const std::string flags = p["build"].at("cxx_flags").get<std::string>();
  EXPECT_NE(flags.find("-Wall"), std::string::npos) << flags;
  EXPECT_NE(flags.find("-std="), std::string::npos) << flags;
  EXPECT_FALSE(p["build"].at("type").get<std::string>().empty());

  EXPECT_EQ(p.at("openmp").at("macro").get<long>(), static_cast<long>(_OPENMP));
  EXPECT_NE(p["openmp"].at("spec").get<std::string>(), "unknown");
  EXPECT_GE(p["openmp"].at("max_threads").get<int>(), 1);

  EXPECT_EQ(p.at("mpi").at("library_version"), "Open MPI v4.1.4");
  EXPECT_EQ(p["mpi"].at("thread_level"), "MPI_THREAD_FUNNELED");
  EXPECT_EQ(p["mpi"].at("world_size"), 4);

  EXPECT_FALSE(p.at("hostname").get<std::string>().empty());
  EXPECT_GE(p.at("machine").at("cores").get<int>(), 1);
  EXPECT_EQ(p.at("started_utc"), "1970-01-01T00:00:00Z");
  EXPECT_EQ(p.at("command_line").size(), 4u);
  EXPECT_EQ(p.at("environment").at("WAVE3D_TEST_MARKER"), "42");
  if (const char* threads = std::getenv("OMP_NUM_THREADS")) {  // ctest sets it for this test
    EXPECT_EQ(p["environment"].at("OMP_NUM_THREADS"), threads);
  }
  ::unsetenv("WAVE3D_TEST_MARKER");
}

TEST(Provenance, OpenMpSpecVersions) {
  EXPECT_EQ(openmp_spec_version(201511), "4.5");
  EXPECT_EQ(openmp_spec_version(201811), "5.0");
  EXPECT_EQ(openmp_spec_version(200805), "3.0");
  EXPECT_EQ(openmp_spec_version(123456), "unknown");
}

TEST(Provenance, EnvironmentFilter) {
  const nlohmann::json env = filter_environment({"OMP_PLACES=cores", "GOMP_SPINCOUNT=0", "OMPI_MCA_btl=self,vader",
                                                 "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=8",
                                                 "OMPI_MCA_orte_precondition_transports=abc-def", "PMIX_RANK=3",
                                                 "SLURM_JOB_ID=123", "SLURM_PROCID=3", "PBS_JOBID=7.server",
                                                 "WAVE3D_RANK_HINT=x", "HOME=/root", "PATH=/bin", "SECRET_TOKEN=x"});
  EXPECT_EQ(env.at("OMP_PLACES"), "cores");
  EXPECT_EQ(env.at("GOMP_SPINCOUNT"), "0");
  EXPECT_EQ(env.at("OMPI_MCA_btl"), "self,vader");
  EXPECT_EQ(env.at("OMPI_COMM_WORLD_SIZE"), "8");
  EXPECT_EQ(env.at("SLURM_JOB_ID"), "123");
  EXPECT_EQ(env.at("PBS_JOBID"), "7.server");
  EXPECT_EQ(env.at("WAVE3D_RANK_HINT"), "x");
  for (const char* left_out : {"OMPI_COMM_WORLD_RANK", "OMPI_MCA_orte_precondition_transports", "PMIX_RANK",
                               "SLURM_PROCID", "HOME", "PATH", "SECRET_TOKEN"})
    EXPECT_FALSE(env.contains(left_out)) << left_out;
}

}  // namespace
}  // namespace wave3d
