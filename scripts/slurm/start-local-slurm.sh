#!/usr/bin/env bash
# Starts a private Slurm cluster, for the tests that submit job scripts to a real scheduler: its own
# munged, slurmctld and slurmd, every file (keys, sockets, state, spool, logs, PID files) under DIR,
# free TCP ports, each node described from this machine (`slurmd -C`). Nothing under /etc or /run is
# read or changed, so it runs beside a system Slurm or munge and in a container without systemd.
# Waits until every node is idle. Stop it with stop-local-slurm.sh DIR.
#
#   start-local-slurm.sh [--nodes N] [--core-spec N[@NODE]] [--cgroups] [--timeout SECONDS] DIR
#
# One node (the default) runs on loopback under this machine's name. --nodes N (2 or more) makes N
# nodes, node1..nodeN, each a network namespace on a private bridge (node-namespaces.sh) with a host
# name of its own (a UTS namespace) and its own slurmd, so that jobs span "hosts" that reach each other
# over TCP only, as on a cluster. Every node claims this machine's cores: they are shared, so timings
# mean nothing there, but placement, node grouping and multi-node launch are real.
#
# Clients reach the cluster through SLURM_CONF=DIR/slurm.conf (also written to DIR/env.sh).
# --core-spec N configures the node with CoreSpecCount=N: Slurm keeps N cores out of every allocation.
# With several nodes, --core-spec N@NODE does so on NODE only and puts NODE in a partition of its own,
# `corespec`, so that jobs of the default partition `test` run on the nodes whose cores are all theirs.
# --cgroups confines jobs with the cgroup v1 hierarchies under /sys/fs/cgroup (proctrack/cgroup,
# task/cgroup with ConstrainCores=yes): a job process cannot leave its cores, and slurmd stays on the
# specialised ones. It needs a cpuset hierarchy the machine lets root write.
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
# - mpi.conf: PMIxCollFence=ring. By default Slurm 22.05 runs a fence that collects data (MPI_Init's
#   modex) as a ring and one that does not (MPI_Init's closing barrier) as a tree; across this
#   cluster's nodes a rank then now and then left MPI_Init and sent its first message to a rank still
#   waiting in the modex, before that rank's PML had a handler for it: SIGSEGV at address 0 inside
#   MPI_Init (core dumps: the TCP BTL called tag 0x41, ob1's MATCH, from the modex fence's wait). Of
#   750 four-rank srun launches on 2 nodes 16 died so with the default fences and 2 of 120 with
#   SLURM_PMIX_FENCE=tree; none of 720 with ring fences.
# - spank_pbs.so in plugstack.conf sets PBS_JOBID, PBS_O_WORKDIR, ... in every job, so PBS job scripts
#   submitted with slurm-wlm-torque's qsub see the variables they expect.
# - SlurmUser and SlurmdUser are root: slurmd has to start job steps as the submitting user.
set -euo pipefail

usage() { echo "usage: $0 [--nodes N] [--core-spec N[@NODE]] [--cgroups] [--timeout SECONDS] DIR" >&2; exit 2; }
die() { echo "start-local-slurm: error: $*" >&2; exit 1; }

core_spec=0
core_spec_node=
cgroups=0
nodes=1
timeout=60
dir=
while (($#)); do
  case $1 in
    --nodes) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--nodes needs a number of nodes, got '${2-}'"
             nodes=$2; shift 2 ;;
    --cgroups) cgroups=1; shift ;;
    --core-spec) [[ $# -ge 2 && $2 =~ ^([0-9]+)(@(node[1-9][0-9]*))?$ ]] ||
                   die "--core-spec needs a number of cores, optionally @nodeK, got '${2-}'"
                 core_spec=${BASH_REMATCH[1]} core_spec_node=${BASH_REMATCH[3]}; shift 2 ;;
    --timeout) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a positive number of seconds, got '${2-}'"
               timeout=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1'" ;;
    *) [[ -z $dir ]] || usage; dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || usage
if [[ -n $core_spec_node ]] && ((${core_spec_node#node} > nodes || nodes < 2)); then
  die "--core-spec ${core_spec}@${core_spec_node} names a node this cluster of $nodes node(s) does not have (node1..node$nodes, with --nodes 2 or more)"
fi
if ((cgroups)) && [[ ! -w /sys/fs/cgroup/cpuset/cpuset.cpus ]]; then
  die "--cgroups needs the cgroup v1 cpuset hierarchy at /sys/fs/cgroup/cpuset, writable: not found here"
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Everything the cluster needs, with the Debian package that provides it.
missing=()
for tool in munged:munge mungekey:munge slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client \
            squeue:slurm-client sinfo:slurm-client scontrol:slurm-client qsub:slurm-wlm-torque; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool%%:*} (package ${tool#*:})")
done
if ((${#missing[@]})); then
  die "Slurm is not installed: missing ${missing[*]}. Install the packages with scripts/install-deps.sh," \
      "or leave out the tests that need Slurm with 'ctest -LE \"slurm|multinode\"'."
fi
[[ $(id -u) -eq 0 ]] || die "must run as root: slurmd starts job steps as the submitting user" \
                            "(skip the Slurm tests with 'ctest -LE \"slurm|multinode\"')"

# A cluster left behind in DIR by an interrupted run is stopped first, by its PID files.
if [[ -d $dir ]]; then "$here/stop-local-slurm.sh" --quiet "$dir"; fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case $dir in *[[:space:]]* | *[\"\'\\\$\`]*) die "DIR '$dir' must not contain blanks or quotes: Slurm's configuration and qsub cannot carry them" ;; esac

# munged refuses a socket whose directory is writable by others or not searchable by all.
chmod 0755 "$dir"
for sub in munge state spool log tmp node-tmp; do rm -rf "${dir:?}/$sub"; mkdir -p "$dir/$sub"; done
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
hardware_words=("${node_words[@]:1}")  # without NodeName

# The nodes: name, address and network namespace ("-" for this machine itself on loopback).
node_names=() node_addresses=() node_namespaces=()
controller_host=localhost
if ((nodes == 1)); then
  node_names=("$node_name") node_addresses=(127.0.0.1) node_namespaces=(-)
else
  "$here/node-namespaces.sh" up "$dir" "$nodes" >/dev/null
  while read -r name address namespace _; do
    node_names+=("$name") node_addresses+=("$address") node_namespaces+=("$namespace")
  done <"$dir/nodes"
  read -r _ host_address <"$dir/bridge"
  controller_host="$(hostname -s)($host_address)"
fi
node_lines=$(for i in "${!node_names[@]}"; do
  spec_words=()
  if ((core_spec > 0)) && [[ -z $core_spec_node || $core_spec_node == "${node_names[$i]}" ]]; then
    spec_words=("CoreSpecCount=$core_spec")
  fi
  echo "NodeName=${node_names[$i]} NodeHostname=${node_names[$i]} ${hardware_words[*]} ${spec_words[*]} NodeAddr=${node_addresses[$i]} State=UNKNOWN"
done)
if [[ -n $core_spec_node ]]; then
  plain_nodes=$(printf '%s\n' "${node_names[@]}" | grep -vx "$core_spec_node" | paste -sd, -)
  partition_lines="PartitionName=test Nodes=$plain_nodes Default=YES MaxTime=INFINITE State=UP
PartitionName=corespec Nodes=$core_spec_node MaxTime=INFINITE State=UP"
else
  partition_lines="PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
fi

# Two free ports on loopback: the kernel picks them; they stay free for the moment it takes to start.
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("0.0.0.0", 0))
print(*(s.getsockname()[1] for s in socks))
EOF
)
[[ $ctld_port =~ ^[0-9]+$ && $slurmd_port =~ ^[0-9]+$ ]] || die "could not find two free TCP ports"

mungekey --create --keyfile="$dir/munge/munge.key"
chmod 0600 "$dir/munge/munge.key"
munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
       --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" ||
  die "munged did not start; see $dir/log/munged.log"

if ((cgroups)); then
  tracking_lines="# Jobs live in cgroups (--cgroups): tracked by them, and confined to their cores by cpusets.
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup,task/affinity"
else
  tracking_lines="# No cgroups (see the script's header): track processes by parent PID, bind tasks with sched_setaffinity.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity"
fi
cat >"$dir/slurm.conf" <<EOF
# A private cluster for wave3d's tests, generated by scripts/slurm/start-local-slurm.sh.
ClusterName=wave3d-test
SlurmctldHost=$controller_host
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
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
$tracking_lines
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
$node_lines
$partition_lines
EOF

if ((cgroups)); then
  cat >"$dir/cgroup.conf" <<'EOF'
# Cores are confined through the cgroup v1 cpuset hierarchy; memory and devices are left alone.
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=yes
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
else
  cat >"$dir/cgroup.conf" <<'EOF'
# Nothing is constrained: slurm.conf uses proctrack/linuxproc and task/affinity, which need no cgroups.
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
fi

echo "PMIxCollFence=ring" >"$dir/mpi.conf"

# Relative plugin names resolve in Slurm's PluginDir.
echo "required spank_pbs.so" >"$dir/plugstack.conf"

printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf" >"$dir/env.sh"
export SLURM_CONF=$dir/slurm.conf
for name in "${node_names[@]}"; do mkdir -p "$dir/spool/$name"; done

fail() {
  echo "start-local-slurm: error: $*" >&2
  for log in "$dir"/log/*.log; do echo "--- $log" >&2; tail -n 20 "$log" >&2 || true; done
  "$here/stop-local-slurm.sh" --quiet "$dir" || true
  exit 1
}

slurmctld -c || fail "slurmctld did not start"
for i in "${!node_names[@]}"; do
  name=${node_names[$i]}
  if [[ ${node_namespaces[$i]} == - ]]; then
    slurmd -N "$name" || fail "slurmd did not start"
  else
    # Inside the node's network namespace, with the node's name as host name and a mount namespace in
    # which TmpFS (where the PMIx plugin makes its per-step directories, named alike on every node)
    # and /dev/shm are the node's own. nsenter, not `ip netns exec`, which mounts a sysfs of its own
    # over /sys and so hides the cgroup hierarchies.
    mkdir -p "$dir/node-tmp/$name"
    nsenter --net="/run/netns/${node_namespaces[$i]}" -- unshare --uts --mount --propagation private -- \
      /bin/sh -c 'hostname "$1" && mount --bind "$2" "$3" && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
                  exec slurmd -N "$1"' sh "$name" "$dir/node-tmp/$name" "$dir/tmp" ||
      fail "slurmd of $name did not start"
  fi
done

deadline=$((SECONDS + timeout))
idle=0
while ((SECONDS < deadline)); do
  idle=$(sinfo --noheader --Node --format='%N %T' 2>/dev/null | awk '$2 == "idle"' | wc -l)
  ((idle == nodes)) && break
  sleep 1
done
((idle == nodes)) || fail "$idle of $nodes node(s) idle after ${timeout} s: $(sinfo --noheader --Node --format='%N %T' 2>&1 | tr '\n' ' ')"

echo "start-local-slurm: ${nodes} node(s) ${node_names[*]} idle (${hardware_words[*]}${core_spec_node:+; CoreSpecCount=$core_spec on $core_spec_node}), slurmctld port $ctld_port, slurmd port $slurmd_port"
echo "export SLURM_CONF=$dir/slurm.conf"
