// provenance.batch_job: the scheduler and job id a run belongs to, from the recorded environment.
#include <gtest/gtest.h>

#include "output/provenance.hpp"

namespace wave3d {
namespace {

TEST(BatchJob, SlurmJobIdIsRecorded) {
  const nlohmann::json env = filter_environment({"SLURM_JOB_ID=4711", "SLURM_JOB_NAME=wave3d-single", "HOME=/x"});
  EXPECT_EQ(batch_job_provenance(env), (nlohmann::json{{"scheduler", "slurm"}, {"job_id", "4711"}}));
}

TEST(BatchJob, PbsJobIdIsRecorded) {
  const nlohmann::json env = filter_environment({"PBS_JOBID=123.pbs-server", "PBS_JOBNAME=wave3d-single"});
  EXPECT_EQ(batch_job_provenance(env), (nlohmann::json{{"scheduler", "pbs"}, {"job_id", "123.pbs-server"}}));
}

// Slurm's PBS compatibility (spank_pbs) sets PBS_JOBID in Slurm jobs: the Slurm id is the one its tools know.
TEST(BatchJob, SlurmWinsOverItsPbsCompatibility) {
  const nlohmann::json env = filter_environment({"PBS_JOBID=12", "SLURM_JOB_ID=12"});
  EXPECT_EQ(batch_job_provenance(env).at("scheduler"), "slurm");
}

TEST(BatchJob, OutsideABatchJobItIsNull) {
  EXPECT_TRUE(batch_job_provenance(filter_environment({"HOME=/x", "SLURM_JOB_ID="})).is_null());
  EXPECT_TRUE(batch_job_provenance(nlohmann::json::object()).is_null());
}

}  // namespace
}  // namespace wave3d
