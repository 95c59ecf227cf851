# Sourced by the job templates jobscripts/slurm/study.sbatch and jobscripts/pbs/study.pbs: what every
# study job does, the same for every study. The template says how its scheduler names the job and its
# nodes; the study file is the job's argument; the study runner (jobscripts/wave3d-study) does the rest:
# - it expands the study into configurations x repetitions and checks all of them before running any;
# - the launcher words of every run come from `wave3d plan` (the placement logic lives in one place);
# - settings reach programs only as single arguments: no eval, no `bash -c "$text"`, no unquoted
#   expansion, so a configuration string can never become shell code;
# - everything goes to one study directory, <results>/<study name>/<job id>/.
#
# Environment: WAVE3D_BIN (the wave3d binary; default <root>/build/release/app/wave3d),
# WAVE3D_NOISE_BIN (default: the release build's wave3d-noise), WAVE3D_RESULTS (parent of the study
# directories, instead of study.results), WAVE3D_PYTHON (python3, 3.11 or later).

study_fail() {
  echo "wave3d study: error: $*" >&2
  exit 2
}

# study_file ROOT FILE: FILE, or a one-line error naming the project's studies when none was given.
study_file() {
  if [[ -z $2 ]]; then
    local known
    known=$(cd "$1/configs/studies" 2>/dev/null && printf 'configs/studies/%s ' *.toml)
    study_fail "no study file: give one as the job's argument (sbatch) or as -v WAVE3D_STUDY=FILE (qsub); the" \
               "project's studies: ${known% }"
  fi
  printf '%s\n' "$2"
}

# study_runner ROOT ARGS...: the study runner with the job's arguments.
study_runner() {
  local root=$1
  shift
  "${WAVE3D_PYTHON:-python3}" "$root/jobscripts/wave3d-study" run --root "$root" "$@"
}

# study_slurm ROOT STUDY_FILE: the study inside this Slurm job, every run an srun step of the allocation.
study_slurm() {
  local root=$1 file=$2
  [[ $file == /* ]] || file=$root/$file
  study_runner "$root" --scheduler slurm --job-id "${SLURM_JOB_ID:?not in a Slurm job}" \
    --nodes "${SLURM_JOB_NUM_NODES:?}" --launcher srun -- "$file"
}

# study_pbs ROOT STUDY_FILE: the study inside this PBS job, every run an mpirun (Open MPI) over the job's
# nodes.
study_pbs() {
  local root=$1 file=$2 nodes
  local -a hostfile=()
  [[ $file == /* ]] || file=$root/$file
  # Nodes: the distinct hosts of $PBS_NODEFILE. Slurm's PBS compatibility (slurm-wlm-torque's qsub with
  # spank_pbs) writes no node file; there the job's own Slurm count is the answer.
  if [[ -r ${PBS_NODEFILE-} ]]; then
    nodes=$(sort -u -- "$PBS_NODEFILE" | wc -l)
    hostfile=(--hostfile "$PBS_NODEFILE")
  elif [[ -n ${PBS_NUM_NODES-} ]]; then
    nodes=$PBS_NUM_NODES
  elif [[ -n ${SLURM_JOB_NUM_NODES-} ]]; then
    nodes=$SLURM_JOB_NUM_NODES
  else
    study_fail "cannot tell the job's nodes: no PBS_NODEFILE, PBS_NUM_NODES or SLURM_JOB_NUM_NODES"
  fi
  study_runner "$root" --scheduler pbs --job-id "${PBS_JOBID:?not in a PBS job}" --nodes "$nodes" \
    --launcher mpirun "${hostfile[@]}" -- "$file"
}
