#!/usr/bin/env bash
# Runs a command in a virtual machine with several NUMA nodes, over this machine's own root file
# system (read-only, 9p) with one writable directory: the NUMA testbed for a machine that has one
# node. QEMU runs under TCG (software emulation; /dev/kvm is hidden in a private mount namespace,
# since nested KVM is not usable everywhere), so timings inside mean nothing: it is for functional
# tests. The guest boots Debian's kernel (linux-image-amd64) through virtme-ng.
#
#   run-in-numa-guest.sh [--numa-nodes N] [--sockets S] [--memory-mib M] [--hbm] [--timeout SECONDS]
#                        [--boot-timeout SECONDS] --rwdir DIR -- COMMAND...
#
# N NUMA nodes (default 2) of one vCPU each, spread over S sockets (default N), M MiB in all (default
# 2048, split evenly). --hbm adds node N, 512 MiB without CPUs, that the ACPI HMAT table describes as
# 4x the bandwidth of node 0 to socket 0's CPUs (a high-bandwidth memory such as HBM or MCDRAM); hwloc
# reads it as the Bandwidth memory attribute. COMMAND runs as root in the guest, in the current directory, with the variables
# that let Open MPI start as root; its exit status is this script's. The whole VM (virtme-ng and
# QEMU, one process group) is killed at the timeout (default 600 s), or when this script is stopped. A
# guest that has not started the command within the boot timeout (default a third of the timeout, at
# most 180 s) is killed and booted once more; a second stall ends the script with status 125.
# When the command fails or the guest does not finish, the guest kernel's last warnings (soft lockups,
# RCU stalls, hung tasks) follow its output.
#
# Needs: qemu-system-x86, linux-image-amd64 and busybox-static (Debian), virtme-ng (PyPI) in the
# tools environment scripts/install-deps.sh makes ($WAVE3D_TOOLS_VENV, default
# ~/.cache/wave3d/tools-venv); all installed by scripts/install-deps.sh.
set -euo pipefail

die() { echo "run-in-numa-guest: error: $*" >&2; exit 125; }
usage() { echo "usage: $0 [--numa-nodes N] [--sockets S] [--memory-mib M] [--hbm] [--timeout SECONDS] [--boot-timeout SECONDS] --rwdir DIR -- COMMAND..." >&2; exit 125; }

nodes=2
hbm=0
sockets=
memory=2048
timeout=600
boot_timeout=
rwdir=
while (($#)); do
  case $1 in
    --numa-nodes) [[ ${2-} =~ ^[1-8]$ ]] || die "--numa-nodes needs 1 to 8, got '${2-}'"; nodes=$2; shift 2 ;;
    --sockets) [[ ${2-} =~ ^[1-8]$ ]] || die "--sockets needs 1 to 8, got '${2-}'"; sockets=$2; shift 2 ;;
    --memory-mib) [[ ${2-} =~ ^[1-9][0-9]*$ ]] || die "--memory-mib needs a number, got '${2-}'"; memory=$2; shift 2 ;;
    --timeout) [[ ${2-} =~ ^[1-9][0-9]*$ ]] || die "--timeout needs seconds, got '${2-}'"; timeout=$2; shift 2 ;;
    --boot-timeout) [[ ${2-} =~ ^[1-9][0-9]*$ ]] || die "--boot-timeout needs seconds, got '${2-}'"; boot_timeout=$2; shift 2 ;;
    --hbm) hbm=1; shift ;;
    --rwdir) [[ -n ${2-} ]] || die "--rwdir needs a directory"; rwdir=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
(($#)) || usage
[[ -n $rwdir ]] || die "--rwdir is required (the guest sees everything else read-only)"
sockets=${sockets:-$nodes}
((nodes % sockets == 0)) || die "--numa-nodes $nodes does not split evenly over --sockets $sockets"
cpu_memory=$((memory - 512 * hbm))
((cpu_memory > 0 && cpu_memory % nodes == 0)) || die "--memory-mib $memory does not split evenly over $nodes NUMA nodes"
[[ $(id -u) -eq 0 ]] || die "must run as root (a private mount namespace hides /dev/kvm)"

venv=${WAVE3D_TOOLS_VENV:-$HOME/.cache/wave3d/tools-venv}
vng=$venv/bin/vng
[[ -x $vng ]] || die "virtme-ng not found at $vng: run scripts/install-deps.sh (or set WAVE3D_TOOLS_VENV)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (package qemu-system-x86)"
command -v busybox >/dev/null || die "busybox not found (package busybox-static; virtme-ng builds its initramfs with it)"
kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[[ -n $kernel ]] || die "no kernel in /boot (package linux-image-amd64)"
mkdir -p "$rwdir"
rwdir=$(cd "$rwdir" && pwd)

# One NUMA node per vCPU, memory split evenly (virtme-ng passes what follows the size on to QEMU's -numa).
numa=()
# With HMAT (--hbm) QEMU needs every node's initiator, and refuses one without it.
for ((k = 0; k < nodes; k++)); do
  initiator=
  if ((hbm)); then initiator=",initiator=$k"; fi
  numa+=(--numa "$((cpu_memory / nodes))M,cpus=$k$initiator")
done
qemu_options=()
if ((hbm)); then
  numa+=(--numa "512M,initiator=0")
  # HMAT: every CPU node's latency and bandwidth to every node; the extra node is socket 0's fast one.
  hmat="-machine hmat=on"
  for ((i = 0; i < nodes; i++)); do
    for ((t = 0; t <= nodes; t++)); do
      if ((t == nodes)); then if ((i == 0)); then bandwidth=40G; else bandwidth=5G; fi
      elif ((t == i)); then bandwidth=10G
      else bandwidth=5G; fi
      latency=$(( t == i || (t == nodes && i == 0) ? 10 : 20 ))
      hmat+=" -numa hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$latency"
      hmat+=" -numa hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bandwidth"
    done
  done
  qemu_options=("--qemu-opts=$hmat")
fi
smp="$nodes,sockets=$sockets,cores=$((nodes / sockets)),threads=1"

# The command line for the guest's shell: every word quoted, run from the current directory. It first
# leaves a file saying the guest is up; the command's exit status goes to a file in the writable
# directory, and the guest then stops at once (sysrq reboot; QEMU runs with -no-reboot): a guest that
# has run MPI programs can otherwise take minutes to shut down over 9p.
status_file=$rwdir/.guest-exit-status.$$
started_file=$rwdir/.guest-started.$$
guest_command="export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; : > $(printf %q "$started_file"); cd $(printf %q "$PWD") && $(printf '%q ' "$@"); echo \$? > $(printf %q "$status_file"); echo b > /proc/sysrq-trigger"

# A guest that has not reached the command after this long stalled while booting (under TCG a boot
# takes well under a minute; now and then one hangs before init prints anything): it is stopped and
# booted once more, which the output says.
boot_timeout=${boot_timeout:-$(( timeout / 3 < 180 ? timeout / 3 : 180 ))}
((boot_timeout * 3 <= timeout)) || die "--boot-timeout $boot_timeout leaves too little of --timeout $timeout for a second boot (at most a third)"

# The guest kernel's console (warnings and worse: lockups, RCU stalls, hung tasks) shares the standard
# error of virtme-ng with the command's; it goes to a file, and only a failed run shows the kernel's part.
# Through a pipe: QEMU opens each of its outputs on its own (truncating), and a shared file would be
# overwritten by one with the other's text.
console_log=$rwdir/.guest-console.$$
console_pipe=$rwdir/.guest-console-pipe.$$
stall_file=$rwdir/.guest-stalled.$$
kernel_message='^\[ *[0-9]+\.[0-9]+\] '
leader=
stop_guest() { if [[ -n $leader ]]; then kill -KILL -- "-$leader" 2>/dev/null || true; fi; }
remove_files() { rm -f "$console_pipe" "$console_log" "$status_file" "$started_file" "$stall_file"; }
trap 'stop_guest; remove_files; exit 130' INT TERM

# Boots the guest and runs the command, for at most `seconds`; the guest's own output is printed.
# Leaves $stall_file when the guest did not reach the command within $boot_timeout s.
boot_guest() {  # boot_guest <seconds>
  local seconds=$1 console_reader watchdog
  rm -f "$console_pipe" "$console_log" "$status_file" "$started_file" "$stall_file"
  mkfifo "$console_pipe"
  cat "$console_pipe" >"$console_log" &
  console_reader=$!
  # setsid: virtme-ng, QEMU and everything under them form one process group, killed as one.
  setsid unshare --mount -- /bin/bash -c '
    if [ -e /dev/kvm ]; then mount --bind /dev/null /dev/kvm; fi
    PATH="$1:$PATH" exec "$2" --run "$3" --force-9p --disable-kvm --cpus "$4" --memory "$5M" --rwdir "$6" \
      --verbose --append loglevel=4 --exec "$7" "${@:8}"' \
    bash "$venv/bin" "$vng" "$kernel" "$smp" "$memory" "$rwdir" "$guest_command" "${numa[@]}" "${qemu_options[@]}" \
    2>"$console_pipe" &
  leader=$!
  # Its own standard error goes nowhere: stopping its sleeps below would make it report "Killed".
  ( exec 3>&2 2>/dev/null
    sleep "$boot_timeout"
    if [[ ! -e $started_file ]]; then
      : >"$stall_file"
      kill -KILL -- "-$leader"
      exit
    fi
    sleep "$((seconds - boot_timeout))" &&
      echo "run-in-numa-guest: error: the guest did not finish within $timeout s; stopped" >&3 &&
      kill -KILL -- "-$leader" ) &
  watchdog=$!
  disown "$watchdog"  # no job-control notice when it is stopped below
  { wait "$leader"; } 2>/dev/null || true  # no "Killed" notice: the watchdog has said why
  pkill -KILL -P "$watchdog" 2>/dev/null || true  # its sleep, which would hold our output open
  kill -KILL "$watchdog" 2>/dev/null || true
  stop_guest
  wait "$console_reader" || true
  grep -av -E "$kernel_message" "$console_log" | grep -av -E '(Probing EDD|KASLR|^$)' >&2 || true
}

show_kernel_log() {  # the early boot lines (time 0) are always there and say nothing
  local messages
  messages=$(grep -a -E "$kernel_message" "$console_log" | grep -av '^\[    0\.000000\]' | tail -n 80 || true)
  echo "run-in-numa-guest: the guest kernel's last messages (warnings and worse):${messages:+$'\n'}${messages:- none}" >&2
}

boot_started=$SECONDS
boot_guest "$timeout"
if [[ -e $stall_file ]]; then
  echo "run-in-numa-guest: the guest had not reached the command after $boot_timeout s (a stalled boot); booting it once more" >&2
  show_kernel_log
  boot_guest "$((timeout - (SECONDS - boot_started)))"
  if [[ -e $stall_file ]]; then
    echo "run-in-numa-guest: error: the guest stalled while booting twice" >&2
    show_kernel_log
    remove_files
    exit 125
  fi
fi
if ! read -r status 2>/dev/null <"$status_file" || [[ ! $status =~ ^[0-9]+$ ]]; then
  echo "run-in-numa-guest: error: the guest ended without reporting the command's exit status" >&2
  show_kernel_log
  remove_files
  exit 125
fi
if ((status != 0)); then show_kernel_log; fi
remove_files
exit "$status"
