#!/usr/bin/env bash
# Installs the Debian packages gpmx needs, only those that are missing.
# Runs as root on a fresh machine; apt-get update runs once, first, and only
# when something has to be installed.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libboost-context-dev
  libgtest-dev libgmock-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libpmem-dev libpmemobj-dev  # libpmemobj: the transaction benchmark's CPU baseline
  liburing-dev fio  # BaM: the emulated NVMe controller's I/O; fio, the raw-IOPS reference
  librocksdb-dev
  python3 python3-matplotlib  # the tests' JSON checks; gpmx sim figure's charts
  clang-14 libfuzzer-14-dev  # only for the fuzz targets (scripts/fuzz.sh)
  libopenmpi-dev openmpi-bin  # gpmx check --mpi and its test (optional: the build works without)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "gpmx: installing missing packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "gpmx: installing packages needs root (apt-get); run this script as root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
