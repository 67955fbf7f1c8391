#!/usr/bin/env bash
# Usage: bash ci/platforms/user.sh [--work DIR]
#
# Measures verify on this machine as a normal user (verify-user, made with useradd -m when
# missing), with its own venv: measure.sh run through runuser, from a `git archive` of HEAD
# and wheels in a share of its own under WORK. Its record: WORK/out/host-user/host-user.json, for table.py.
# Run as root; WORK defaults to /tmp/verify-platforms.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/platforms/share.sh
source "$here/share.sh"
work=/tmp/verify-platforms
while [ $# -gt 0 ]; do
    case $1 in
        --work) work=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -/p' "$0" | sed 's/^# \{0,1\}//;/^set -/d'; exit 0 ;;
        *) echo "user: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "user: run it as root (it makes the user and runs verify as that user)" >&2; exit 2; }
name=verify-user
id "$name" >/dev/null 2>&1 || useradd -m -s /bin/bash "$name"
# a share of this run's own: a run at the same time keeps its commit under test
mkdir -p "$work"
share=$(mktemp -d "$work/share.XXXXXX")
trap 'rm -rf "$share"' EXIT
prepare_share "$share"
out=$work/out/host-user
rm -rf "$out"
install -d -o "$name" "$out"
start=$(date +%s)
(cd / && runuser -u "$name" -- env HOME="$(getent passwd "$name" | cut -d: -f6)" TMPDIR=/tmp \
    bash "$share/harness/measure.sh" host-user "$share" "$out")
echo "user: host-user: $(( $(date +%s) - start )) s"
