#!/usr/bin/env bash
# tests/check_install.sh on a machine that has oneDNN's, TBB's and OpenCL's runtime libraries
# but not their -dev packages (no headers, no CMake or pkg-config files): what a user of an
# installed qgraph may have. It REMOVES libdnnl-dev, libtbb-dev and ocl-icd-opencl-dev with
# apt-get for the check and installs them again on exit, so it runs last in .ci/run and not
# in ctest (it would break builds running beside it). Needs root or sudo.
set -euo pipefail
build_dir=${1:?usage: check_install_nodev.sh BUILD_DIR}
cd "$(dirname "$0")/.."

dev_packages=(libdnnl-dev libtbb-dev ocl-icd-opencl-dev)
runtime_packages=(libdnnl2 libtbb12 ocl-icd-libopencl1)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
apt_get() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get -y -qq "$@" >/dev/null; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

reinstall() {
    apt_get install --no-install-recommends "${dev_packages[@]}" \
        || { apt_get update && apt_get install --no-install-recommends "${dev_packages[@]}"; } \
        || { echo "check_install_nodev.sh: could not install ${dev_packages[*]} again" >&2; exit 1; }
}
trap reinstall EXIT
# `remove` (not purge, no autoremove) keeps the runtime libraries that the -dev packages pulled in.
apt_get remove "${dev_packages[@]}"
for p in "${dev_packages[@]}"; do
    ! installed "$p" || { echo "check_install_nodev.sh: $p is still installed" >&2; exit 1; }
done
for p in "${runtime_packages[@]}"; do
    installed "$p" || { echo "check_install_nodev.sh: $p is gone" >&2; exit 1; }
done

tests/check_install.sh "$build_dir"
echo "install without ${dev_packages[*]}: ok"
