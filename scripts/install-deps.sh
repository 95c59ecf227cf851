#!/usr/bin/env bash
# Installs the Debian packages wave3d builds and tests with, skipping those already present, and
# virtme-ng (PyPI, for the NUMA guest) in a virtual environment of its own.
# Parallel HDF5 comes from libhdf5-openmpi-dev; libhdf5-dev (serial) must not be installed beside it,
# or CMake's FindHDF5 picks the serial library.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config git python3
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev hdf5-tools
  libhwloc-dev hwloc
  libpapi-dev papi-tools
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev
  python3-numpy python3-matplotlib python3-h5py python3-tomli-w
  # The tests labelled `slurm` (a private Slurm on loopback, scripts/slurm/): the daemons, sbatch/srun/
  # squeue, munge for authentication, and qsub over Slurm (slurm-wlm-torque) for the PBS job scripts.
  slurmctld slurmd slurm-client munge slurm-wlm-torque
  # The multi-node cluster: network namespaces, veth pairs and a bridge (ip), nsenter and unshare.
  iproute2 util-linux
  # The NUMA guest (scripts/numa-guest/): QEMU, Debian's kernel to boot, busybox for virtme-ng's
  # initramfs, and venv for virtme-ng itself (below).
  qemu-system-x86 linux-image-amd64 busybox-static python3-venv
  # The installation test loads the environment module that cmake --install writes (Lmod).
  lmod
  # ParaView's own readers open the field files in a test (pvpython).
  paraview python3-paraview
)

# virtme-ng boots the guest over this machine's root file system; it is not packaged in Debian 12.
tools_venv=${WAVE3D_TOOLS_VENV:-$HOME/.cache/wave3d/tools-venv}
install_tools_venv() {
  [[ -x $tools_venv/bin/vng ]] && return
  echo "install-deps: installing virtme-ng into $tools_venv"
  python3 -m venv "$tools_venv"
  "$tools_venv/bin/pip" install --quiet "virtme-ng==1.42"
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  install_tools_venv
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
if dpkg-query -W -f='${Status}' libhdf5-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "install-deps: warning: libhdf5-dev (serial HDF5) is installed; CMake may pick it over the parallel one" >&2
fi
install_tools_venv
