#!/usr/bin/env bash
# Usage: sudo bash ci/platforms/all.sh [--work DIR] [--rootfs DIR] [--no-vm] [--only PARTS]
#                                      [--update FILE]
#
# Measures verify on every platform and writes the table (WORK/platforms.md; with --update,
# also between the table's markers in FILE, e.g. docs/platforms.md):
#   host-root   this machine as root (measure.sh)
#   host-user   this machine as a normal user (user.sh)
#   podman-*    rootful and rootless Podman, default and recommended flags (container.sh,
#               ROOTFS passed on)
#   vm          the systemd + cgroup v2 VM, as root in a service and as a user in a login
#               session (vm/run.sh, with its image from vm/build.sh; --no-vm leaves it out,
#               and so does a missing image, with a line saying so): the suite's cgroup
#               modes only and no check, unless $VERIFY_VM_SETTINGS (environment
#               assignments for measure.sh, "" for everything) says otherwise
# --only PARTS: some of them, e.g. --only host-root,vm (PARTS: host-root, host-user,
# containers, vm); the table still shows every record in WORK/out. Each measures the
# commit at HEAD (a git archive), with no network inside. WORK defaults to
# /tmp/verify-platforms; its out/ keeps every record and log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/platforms/share.sh
source "$here/share.sh"
work=/tmp/verify-platforms
rootfs_args=()
vm=yes
parts=host-root,host-user,containers,vm
update_args=()
command_line="sudo bash ci/platforms/all.sh $*"
while [ $# -gt 0 ]; do
    case $1 in
        --work) work=$2; shift 2 ;;
        --rootfs) rootfs_args=(--rootfs "$2"); shift 2 ;;
        --no-vm) vm=no; shift ;;
        --only) parts=$2; shift 2 ;;
        --update) update_args=(--update "$2"); shift 2 ;;
        -h|--help) sed -n '2,/^set -/p' "$0" | sed 's/^# \{0,1\}//;/^set -/d'; exit 0 ;;
        *) echo "all: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "all: run it as root (sudo bash ci/platforms/all.sh)" >&2; exit 2; }
command_line=${command_line% }
mkdir -p "$work/out"

wanted() { [[ ",$parts," == *",$1,"* ]]; }
share=$(mktemp -d "$work/share.XXXXXX")
trap 'rm -rf "$share"' EXIT
prepare_share "$share"
if wanted host-root; then
    echo "all: host-root"
    rm -rf "$work/out/host-root"
    (cd / && bash "$share/harness/measure.sh" host-root "$share" "$work/out/host-root")
fi
if wanted host-user; then
    echo "all: host-user"
    bash "$here/user.sh" --work "$work"
fi
if wanted containers; then
    echo "all: containers"
    bash "$here/container.sh" --work "$work" ${rootfs_args[@]+"${rootfs_args[@]}"}
fi
wanted vm || vm=no

vm_dir=${VERIFY_VM_DIR:-/tmp/verify-vm}
# software emulation runs 5-20 times slower: by default the VM runs the suite's cgroup modes
# (what it is there to prove) and leaves the check out; $VERIFY_VM_SETTINGS changes that
vm_settings=${VERIFY_VM_SETTINGS-"VERIFY_PLATFORM_CHECK=no VERIFY_CONFORMANCE_ARGS='--mode bwrap-cgroup --mode none-cgroup'"}
if [ "$vm" = yes ] && [ -f "$vm_dir/disk.img" ]; then
    echo "all: vm"
    rm -rf "$work/out/vm" "$work/vm-harness"
    mkdir -p "$work/out/vm" "$work/vm-harness/harness"
    cp "$share/harness/measure.sh" "$work/vm-harness/harness/"
    bash "$here/vm/run.sh" --copy "$work/vm-harness/harness" -- \
        "$vm_settings bash /share/copy/harness/measure.sh vm --here -" > "$work/out/vm/run.log" 2>&1 || true
    python3 - "$work/out/vm" "$(cat "$share/commit")" <<'PY'
import json
import sys
from pathlib import Path

folder, commit = Path(sys.argv[1]), sys.argv[2]
for line in (folder / "run.log").read_text(errors="replace").splitlines():
    if line.startswith("platform-record: "):
        record = json.loads(line.removeprefix("platform-record: "))
        record["commit"] = record.get("commit") or commit
        who = "root" if record["uid"] == 0 else "user"
        (folder / f"vm-{who}.json").write_text(json.dumps(record, indent=1) + "\n")
PY
    ls "$work/out/vm/"vm-*.json >/dev/null 2>&1 || echo "all: vm: no record (see $work/out/vm/run.log)"
elif [ "$vm" = yes ]; then
    echo "all: vm: left out, no VM image in $vm_dir (bash ci/platforms/vm/build.sh makes it)"
fi

python3 "$here/table.py" "$work/out" --command "$command_line" ${update_args[@]+"${update_args[@]}"} \
    > "$work/platforms.md"
echo "all: the table is in $work/platforms.md"
