#!/usr/bin/env bash
# Usage: bash ci/platforms/rootfs.sh ROOTFS
#
# A Debian bookworm root file system in ROOTFS for the container platforms, made with
# debootstrap from Debian's packages only (no registry image is pulled): the sandbox, Python
# with venv, and the languages of the bundled entries and of the conformance fixtures.
# Vyxal comes from PyPI into ROOTFS/opt/vyxal, where languages.toml runs it from.
# Runs as root; needs debootstrap (apt-get install -y debootstrap) and the Debian mirror
# ($DEBIAN_MIRROR, default deb.debian.org). A finished rootfs holds ROOTFS/.done, which
# names its packages: it is left as it is while that list is this script's, and made again
# when the list changes (or when the folder is removed).
set -euo pipefail
rootfs=${1:?usage: rootfs.sh ROOTFS}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=(
    bubblewrap libseccomp2 python3 python3-venv python3-pip
    gcc libc6-dev perl nodejs tcl8.6 gawk mawk ruby lua5.4 php-cli golang-go
    openjdk-17-jdk-headless procps ca-certificates
)
made_of="packages: ${packages[*]} vyxal==2.21.5"
if [ -f "$rootfs/.done" ] && [ "$(cat "$rootfs/.done")" = "$made_of" ]; then
    echo "rootfs: $rootfs is already made"
    exit 0
fi
[ "$(id -u)" = 0 ] || { echo "rootfs: debootstrap needs root (run it with sudo)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "rootfs: debootstrap is not installed (apt-get install -y debootstrap)" >&2; exit 2; }
rm -rf "$rootfs"
mkdir -p "$(dirname "$rootfs")"
include=$(IFS=,; echo "${packages[*]}")
debootstrap --variant=minbase --include="$include" bookworm "$rootfs" "$mirror"
# the same Vyxal as ci/install-languages.sh (it pins numpy < 2), for the rootfs's Python 3.11,
# compiled: the sandbox mounts /opt read-only, and compiling its modules on every run takes
# longer than a case's time limit
python3 -m pip install -q --target "$rootfs/opt/vyxal" vyxal==2.21.5
chroot "$rootfs" apt-get clean
echo "$made_of" > "$rootfs/.done"
echo "rootfs: made $rootfs"
