#!/usr/bin/env bash
# Starts a private single-node Slurm cluster on loopback, for the tests that submit job scripts to a
# real scheduler: its own munged, slurmctld and slurmd, every file (keys, sockets, state, spool, logs,
# PID files) under DIR, free TCP ports, the node described from this machine (`slurmd -C`). Nothing
# under /etc or /run is read or changed, so it runs beside a system Slurm or munge and in a container
# without systemd. Waits until the node is idle. Stop it with stop-local-slurm.sh DIR.
#
#   start-local-slurm.sh [--core-spec N] [--timeout SECONDS] DIR
#
# Clients reach the cluster through SLURM_CONF=DIR/slurm.conf (also written to DIR/env.sh).
# --core-spec N configures the node with CoreSpecCount=N: Slurm keeps N cores out of every allocation.
#
# Choices made for containers and CI machines:
# - ProctrackType=proctrack/linuxproc and TaskPlugin=task/affinity need no cgroup hierarchy (neither v1
#   nor a writable v2): processes are tracked through their parent PIDs and tasks are bound with
#   sched_setaffinity. Without cgroups nothing confines memory or a process that rebinds itself, and the
#   Slurm daemons are not fenced off the specialised cores; a job's own CPU binding is still enforced.
# - cgroup.conf is written anyway (and names no plugin that would mount anything) so that slurmd never
#   falls back to a system /etc/slurm/cgroup.conf.
# - MpiDefault=pmix: Debian's Open MPI is built against PMIx and starts under `srun --mpi=pmix`; it
#   does not work with `--mpi=pmi2`.
# - spank_pbs.so in plugstack.conf sets PBS_JOBID, PBS_O_WORKDIR, ... in every job, so PBS job scripts
#   submitted with slurm-wlm-torque's qsub see the variables they expect.
# - SlurmUser and SlurmdUser are root: slurmd has to start job steps as the submitting user.
set -euo pipefail

usage() { echo "usage: $0 [--core-spec N] [--timeout SECONDS] DIR" >&2; exit 2; }
die() { echo "start-local-slurm: error: $*" >&2; exit 1; }

core_spec=0
timeout=60
dir=
while (($#)); do
  case $1 in
    --core-spec) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || die "--core-spec needs a number of cores, got '${2-}'"
                 core_spec=$2; shift 2 ;;
    --timeout) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a positive number of seconds, got '${2-}'"
               timeout=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1'" ;;
    *) [[ -z $dir ]] || usage; dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Everything the cluster needs, with the Debian package that provides it.
missing=()
for tool in munged:munge mungekey:munge slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client \
            squeue:slurm-client sinfo:slurm-client scontrol:slurm-client qsub:slurm-wlm-torque; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool%%:*} (package ${tool#*:})")
done
if ((${#missing[@]})); then
  die "Slurm is not installed: missing ${missing[*]}. Install the packages with scripts/install-deps.sh," \
      "or leave out the tests that need Slurm with 'ctest -LE slurm'."
fi
[[ $(id -u) -eq 0 ]] || die "must run as root: slurmd starts job steps as the submitting user" \
                            "(skip the Slurm tests with 'ctest -LE slurm')"

# A cluster left behind in DIR by an interrupted run is stopped first, by its PID files.
if [[ -d $dir ]]; then "$here/stop-local-slurm.sh" --quiet "$dir"; fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case $dir in *[[:space:]]* | *[\"\'\\\$\`]*) die "DIR '$dir' must not contain blanks or quotes: Slurm's configuration and qsub cannot carry them" ;; esac

# munged refuses a socket whose directory is writable by others or not searchable by all.
chmod 0755 "$dir"
for sub in munge state spool log tmp; do rm -rf "${dir:?}/$sub"; mkdir -p "$dir/$sub"; done
chmod 0755 "$dir/munge"

# This machine as slurmd sees it, e.g. "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2
# ThreadsPerCore=1 RealMemory=24105". Only the hardware keys are taken, and only in a plain key=value shape.
node_line=$(SLURM_CONF=/dev/null slurmd -C 2>/dev/null | head -n 1) || true
node_words=()
node_name=
for word in $node_line; do
  [[ $word =~ ^(NodeName|CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=([A-Za-z0-9._-]+)$ ]] ||
    continue
  node_words+=("$word")
  [[ ${BASH_REMATCH[1]} == NodeName ]] && node_name=${BASH_REMATCH[2]}
done
[[ -n $node_name && ${#node_words[@]} -ge 6 ]] || die "'slurmd -C' did not describe this machine: '$node_line'"
if ((core_spec > 0)); then node_words+=("CoreSpecCount=$core_spec"); fi

# Two free ports on loopback: the kernel picks them; they stay free for the moment it takes to start.
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
EOF
)
[[ $ctld_port =~ ^[0-9]+$ && $slurmd_port =~ ^[0-9]+$ ]] || die "could not find two free TCP ports"

mungekey --create --keyfile="$dir/munge/munge.key"
chmod 0600 "$dir/munge/munge.key"
munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
       --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" ||
  die "munged did not start; see $dir/log/munged.log"

cat >"$dir/slurm.conf" <<EOF
# A private single-node cluster for wave3d's tests, generated by scripts/slurm/start-local-slurm.sh.
ClusterName=wave3d-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
# No cgroups (see the script's header): track processes by parent PID, bind tasks with sched_setaffinity.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# A test must not wait for the node to be resumed by hand after a restart.
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=300
KillWait=5
${node_words[*]} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

cat >"$dir/cgroup.conf" <<'EOF'
# Nothing is constrained: slurm.conf uses proctrack/linuxproc and task/affinity, which need no cgroups.
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF

# Relative plugin names resolve in Slurm's PluginDir.
echo "required spank_pbs.so" >"$dir/plugstack.conf"

printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf" >"$dir/env.sh"
export SLURM_CONF=$dir/slurm.conf
mkdir -p "$dir/spool/$node_name"

fail() {
  echo "start-local-slurm: error: $*" >&2
  for log in "$dir"/log/*.log; do echo "--- $log" >&2; tail -n 20 "$log" >&2 || true; done
  "$here/stop-local-slurm.sh" --quiet "$dir" || true
  exit 1
}

slurmctld -c || fail "slurmctld did not start"
slurmd || fail "slurmd did not start"

deadline=$((SECONDS + timeout))
state=
while ((SECONDS < deadline)); do
  state=$(sinfo --noheader --nodes="$node_name" --format=%T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 1
done
[[ $state == idle ]] || fail "node $node_name not idle after ${timeout} s (state: '${state:-no answer}')"

echo "start-local-slurm: node $node_name idle (${node_words[*]:1}), slurmctld port $ctld_port, slurmd port $slurmd_port"
echo "export SLURM_CONF=$dir/slurm.conf"
