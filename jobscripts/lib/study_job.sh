# Sourced by the job scripts in jobscripts/slurm/ and jobscripts/pbs/: what every study job does, the
# same under any scheduler. The scheduler's own script only says which scheduler it is, the job id, the
# number of nodes and which launcher line of `wave3d plan` to use (srun or mpirun).
#
# Rules kept here:
# - Settings come from the study configuration through jobscripts/lib/study_config.py as NUL-separated
#   data, and reach programs only as single quoted arguments: no eval, no `bash -c "$text"`, no unquoted
#   expansion. A configuration string can never become shell code.
# - The launcher words come from `wave3d plan --print-argv`: the placement logic lives in one place.
# - Everything the job writes goes to one study directory, <results>/<study name>/<job id>/.
#
# Environment: WAVE3D_BIN (the wave3d binary; default <root>/build/release/src/app/wave3d),
# WAVE3D_NOISE_BIN (default: wave3d-noise in the build tree next to WAVE3D_BIN's),
# WAVE3D_RESULTS (parent of the study directories, instead of study.results), WAVE3D_PYTHON (python3).

study_fail() {
  echo "wave3d study: error: $*" >&2
  exit 2
}

study_note() { echo "wave3d study: $*"; }

study_utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# study_read ROOT STUDY_FILE JOB_ID: reads the study configuration into the associative array `study`
# (one value per key) and the arrays `run_set` and `run_output` (the --set overrides).
study_read() {
  local root=$1 file=$2 job_id=$3 records key value
  declare -gA study=()
  run_set=()
  run_output=()
  records=$(mktemp)
  if ! "${WAVE3D_PYTHON:-python3}" "$root/jobscripts/lib/study_config.py" read "$file" --root "$root" \
       --job-id "$job_id" >"$records"; then
    rm -f "$records"
    study_fail "the study configuration $file was not accepted (see above)"
  fi
  while IFS= read -r -d '' key && IFS= read -r -d '' value; do
    case $key in
      run.set) run_set+=("$value") ;;
      run.output) run_output+=("$value") ;;
      *) study[$key]=$value ;;
    esac
  done <"$records"
  rm -f "$records"
}

# The options of `wave3d plan` the study's [placement] asks for, on NODES nodes, in the array plan_options.
study_plan_options() {
  local nodes=$1
  plan_options=(--layout "${study[placement.layout]}" --ranks-per-node "${study[placement.ranks_per_node]}"
                --threads "${study[placement.threads]}" --reserve "${study[placement.reserve]}" --nodes "$nodes")
  if [[ ${study[placement.progress_thread]} == true ]]; then plan_options+=(--progress-thread); fi
  if [[ ${study[placement.smt]} == true ]]; then plan_options+=(--smt); fi
}

# The per-node wrapper of the daemon, a fixed text: $1 is the study's daemon directory, the rest is the
# daemon's command. It logs to $1/noise-<host>.tsv and ends the daemon with SIGTERM (so it writes its log
# out) when $1/stop appears. A stop file works the same under srun and mpirun, which both answer a
# SIGTERM of their own by killing their tasks outright.
study_daemon_wrapper='log=$1/noise-$(hostname -s).tsv
"${@:2}" --log "$log" &
pid=$!
while [ ! -e "$1/stop" ] && kill -0 "$pid" 2>/dev/null; do sleep 1; done
kill -TERM "$pid" 2>/dev/null
wait "$pid"'

# study_daemon_start LAUNCHER NODES: starts wave3d-noise once on every node, in the background; returns
# once every node's log exists.
study_daemon_start() {
  local launcher=$1 nodes=$2 deadline logs
  local -a per_node noise_args
  noise_args=("$noise" --period "${study[daemon.period]}" --duration "${study[daemon.duration]}"
              --kind "${study[daemon.kind]}" --mib "${study[daemon.mib]}")
  if [[ -n ${study[daemon.cpus]} ]]; then noise_args+=(--cpus "${study[daemon.cpus]}"); fi
  daemon_dir=$study_dir/daemon
  mkdir -p "$daemon_dir"
  case $launcher in
    # --overlap: the daemon shares the CPUs of the run's step instead of waiting for them.
    srun) per_node=(srun --overlap --nodes="$nodes" --ntasks="$nodes" --ntasks-per-node=1 --cpu-bind=none
                    --mpi=none --kill-on-bad-exit=0) ;;
    mpirun) per_node=(mpirun -n "$nodes" --map-by ppr:1:node --bind-to none "${hostfile_args[@]}") ;;
    *) study_fail "no daemon launcher for '$launcher'" ;;
  esac
  per_node+=(bash -c "$study_daemon_wrapper" wave3d-noise "$daemon_dir" "${noise_args[@]}")
  printf '%s\0' "${per_node[@]}" >"$daemon_dir/command.argv"
  "${per_node[@]}" &
  daemon_pid=$!
  deadline=$((SECONDS + 60))
  while :; do
    logs=$(find "$daemon_dir" -name 'noise-*.tsv' | wc -l)
    ((logs >= nodes)) && break
    if ! kill -0 "$daemon_pid" 2>/dev/null; then
      wait "$daemon_pid" || true
      daemon_pid=
      study_fail "the daemon ended before it ran on all $nodes node(s) (see above)"
    fi
    ((SECONDS < deadline)) || study_fail "the daemon did not start on all $nodes node(s) within 60 s"
    sleep 0.5
  done
  study_note "daemon running on $nodes node(s): ${noise_args[*]}"
}

# Ends the daemon through its stop file and records the launcher's exit status; a launcher still there
# after 60 s is terminated.
study_daemon_stop() {
  [[ -n ${daemon_pid-} ]] || return 0
  touch "$daemon_dir/stop"
  local deadline=$((SECONDS + 60))
  while kill -0 "$daemon_pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
  kill -TERM "$daemon_pid" 2>/dev/null || true
  daemon_status=0
  wait "$daemon_pid" || daemon_status=$?
  daemon_pid=
  rm -f "$daemon_dir/stop"
  study_note "daemon stopped (launcher exit status $daemon_status)"
}

# study_run SCHEDULER JOB_ID NODES LAUNCHER ROOT STUDY_FILE: the whole job. LAUNCHER is srun or mpirun.
study_run() {
  local scheduler=$1 job_id=$2 nodes=$3 launcher_kind=$4 root=$5 file=$6
  local started finished status=0
  [[ $nodes =~ ^[1-9][0-9]*$ ]] || study_fail "node count '$nodes' is not a positive number"
  [[ $file == /* ]] || file=$root/$file

  wave3d=${WAVE3D_BIN:-$root/build/release/src/app/wave3d}
  noise=${WAVE3D_NOISE_BIN:-$(dirname "$wave3d")/../../tools/noise/wave3d-noise}
  [[ -x $wave3d ]] || study_fail "wave3d binary '$wave3d' not found: build it or set WAVE3D_BIN"

  study_read "$root" "$file" "$job_id"
  study_dir=${study[study.dir]}
  [[ ! -e $study_dir/run ]] || study_fail "$study_dir already holds a run; a job id is used once"
  mkdir -p "$study_dir"
  cp -- "$file" "$study_dir/study.toml"
  started=$(study_utc)
  study_note "study ${study[study.name]}, $scheduler job $job_id on $nodes node(s): $study_dir"

  hostfile_args=()
  if [[ $launcher_kind == mpirun && -r ${PBS_NODEFILE-} ]]; then hostfile_args=(--hostfile "$PBS_NODEFILE"); fi

  study_plan_options "$nodes"
  "$wave3d" plan "${plan_options[@]}" >"$study_dir/plan.txt" ||
    study_fail "wave3d plan refused the study's [placement] (see above)"
  "$wave3d" plan "${plan_options[@]}" --print-argv "$launcher_kind" >"$study_dir/launcher.argv" ||
    study_fail "wave3d plan --print-argv $launcher_kind failed (see above)"
  local -a launcher program
  mapfile -d '' -t launcher <"$study_dir/launcher.argv"
  ((${#launcher[@]})) || study_fail "wave3d plan printed no $launcher_kind line"
  # The launcher's own name first, then where a PBS job's nodes are listed, then the placement.
  launcher=("${launcher[0]}" "${hostfile_args[@]}" "${launcher[@]:1}")
  printf '%s\0' "${launcher[@]}" >"$study_dir/launcher.argv"

  program=("$wave3d" run "${study[run.config]}")
  local setting
  for setting in "${run_set[@]}" "${run_output[@]}"; do program+=(--set "$setting"); done
  printf '%s\0' "${program[@]}" >"$study_dir/program.argv"

  daemon_pid=
  daemon_status=
  daemon_dir=
  trap study_daemon_stop EXIT
  if [[ ${study[daemon.enabled]} == true ]]; then
    [[ -x $noise ]] || study_fail "wave3d-noise binary '$noise' not found: build it or set WAVE3D_NOISE_BIN"
    study_daemon_start "$launcher_kind" "$nodes"
  fi

  study_note "running: ${launcher[*]} ${program[*]}"
  "${launcher[@]}" "${program[@]}" || status=$?
  study_daemon_stop
  finished=$(study_utc)

  local -a record=(--text="scheduler=$scheduler" --text="job_id=$job_id" --int="nodes=$nodes"
                   --text="study.name=${study[study.name]}" --text="study.file=$file"
                   --text="study.dir=$study_dir" --text="host=$(hostname)" --text="started_utc=$started"
                   --text="finished_utc=$finished" --argv="launcher=$study_dir/launcher.argv"
                   --argv="program=$study_dir/program.argv" --int="exit_status=$status"
                   --text="run_dir=$study_dir/run")
  if [[ -n ${SLURM_JOB_NAME-} ]]; then record+=(--text="job_name=$SLURM_JOB_NAME"); fi
  if [[ -n ${PBS_JOBNAME-} ]]; then record+=(--text="pbs_job_name=$PBS_JOBNAME"); fi
  if [[ -n $daemon_status ]]; then
    record+=(--argv="daemon.command=$daemon_dir/command.argv" --int="daemon.exit_status=$daemon_status")
  fi
  "${WAVE3D_PYTHON:-python3}" "$root/jobscripts/lib/study_config.py" record "$study_dir/job.json" "${record[@]}" ||
    study_fail "could not write $study_dir/job.json"
  rm -f "$study_dir/launcher.argv" "$study_dir/program.argv" "${daemon_dir:+$daemon_dir/command.argv}"
  study_note "run exit status $status; results in $study_dir"
  return "$status"
}
