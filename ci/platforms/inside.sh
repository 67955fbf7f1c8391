#!/usr/bin/env bash
# Usage: bash inside.sh PLATFORM SHARE OUT
#
# Run as root on the machine (or in the container) under test: measures verify there as root
# (OUT/PLATFORM-root.json) and as a normal user, `judge`, made with useradd when missing
# (OUT/PLATFORM-user.json), with measure.sh beside this script. The user gets its cgroup,
# where the container allows one, from entrypoint.sh, as in the container recipe. SHARE holds src/ (a git
# archive of the commit under test) and wheels/; it only needs to be readable.
set -euo pipefail
platform=${1:?usage: inside.sh PLATFORM SHARE OUT}
share=${2:?usage: inside.sh PLATFORM SHARE OUT}
out=${3:?usage: inside.sh PLATFORM SHARE OUT}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "inside: run it as root (it measures as root, then as a normal user)" >&2; exit 2; }
bash "$here/measure.sh" "$platform-root" "$share" "$out"
id judge >/dev/null 2>&1 || useradd -m -s /bin/bash judge
# the user's records go to a folder it owns, then beside root's
user_out=$(mktemp -d /tmp/platform-user-out.XXXXXX)
chown judge "$user_out"
cd /
sh "$here/entrypoint.sh" judge env TMPDIR=/tmp bash "$here/measure.sh" "$platform-user" "$share" "$user_out"
cp "$user_out"/* "$out"/
rm -rf "$user_out"
