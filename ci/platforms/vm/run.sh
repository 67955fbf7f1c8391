#!/usr/bin/env bash
# Run a command in the systemd + cgroup v2 VM, in verify's checkout, as root in a system
# service and as the normal user bob in a login session, and print both outputs.
#
#   bash ci/platforms/vm/run.sh [--as root|user|both] [--copy DIR]... -- COMMAND...
#
# COMMAND's words are joined with spaces and run by bash (as ssh does), in a checkout of this repository's HEAD (git archive; the
# working tree's uncommitted changes are not in it) with verify installed in a venv
# (/opt/verify-venv, first on PATH): as root in /root/verify, from the unit
# verify-vm-run.service, and as bob in /home/bob/verify, in a login session made with
# `runuser -l bob` (pam_systemd: a logind session, bob's systemd user manager, his user bus).
# Each --copy DIR is copied into the VM as /share/copy/<name of DIR>, readable by both.
# The VM has no network: the Python wheels verify needs are built here (pip wheel, from
# the package index) into $VERIFY_VM_DIR/wheels once and copied into the share.
#
# Output: per user a header with its cgroup, COMMAND's output, "rc=N" and its wall time,
# then every cgroup verify names (verify-<pid>-<start>*, verify-leaf) left anywhere in the VM's cgroup tree ("none" when
# nothing is left). Exit 0 when every COMMAND exited 0, 1 when one did not, 2 when the VM
# could not be made or run. Needs the image of build.sh; VERIFY_VM_DIR as there,
# VERIFY_VM_TIMEOUT (seconds, default 3000) bounds the whole boot.
set -euo pipefail
VM=${VERIFY_VM_DIR:-/tmp/verify-vm}
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
who=both
copies=()
while [ $# -gt 0 ]; do
  case "$1" in
    --as) who=$2; shift 2 ;;
    --copy) copies+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "run.sh: unknown option $1 (usage: run.sh [--as root|user|both] [--copy DIR]... -- COMMAND...)" >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then echo "run.sh: no COMMAND (usage: run.sh [--as root|user|both] [--copy DIR]... -- COMMAND...)" >&2; exit 2; fi
case "$who" in root|user|both) ;; *) echo "run.sh: --as takes root, user or both, not $who" >&2; exit 2 ;; esac
if [ ! -f "$VM/disk.img" ]; then echo "run.sh: no VM image in $VM: run bash ci/platforms/vm/build.sh first" >&2; exit 2; fi

share=$VM/share
rm -rf "$share" && mkdir -p "$share/out" "$share/copy"
git -C "$REPO" archive --format=tar HEAD > "$share/verify.tar"
# the wheels: verify's dependencies from pyproject.toml, the build backend, pytest
requirements=$(python3 - "$REPO/pyproject.toml" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))
print("\n".join(project["project"]["dependencies"] + project["build-system"]["requires"] + ["wheel", "pytest"]))
PY
)
stamp=$(printf '%s' "$requirements" | sha256sum | cut -c1-16)
if [ ! -f "$VM/wheels/.$stamp" ]; then
  rm -rf "$VM/wheels" && mkdir -p "$VM/wheels"
  printf '%s\n' "$requirements" > "$VM/wheels/requirements.txt"
  pip wheel -q -w "$VM/wheels" -r "$VM/wheels/requirements.txt" 2> "$VM/wheels/pip.log" \
    || { echo "run.sh: pip wheel failed (see $VM/wheels/pip.log)" >&2; exit 2; }
  touch "$VM/wheels/.$stamp"
fi
cp -r "$VM/wheels" "$share/wheels"
for dir in "${copies[@]}"; do cp -r "$dir" "$share/copy/$(basename "$dir")"; done
printf '%s\n' "$*" > "$share/command"
echo "$who" > "$share/who"

cat > "$share/inside.sh" <<'INSIDE'
# Runs at boot as root in verify-vm-run.service (see build.sh).
set -u
out=/share/out
python3 -m venv /opt/verify-venv > $out/install.log 2>&1 &&
  /opt/verify-venv/bin/pip install -q --no-index --find-links /share/wheels /share/verify.tar pytest >> $out/install.log 2>&1 ||
  { echo "install failed"; cat $out/install.log; exit 2; }
chmod -R a+rX /share/copy
for home in /root /home/bob; do
  rm -rf $home/verify && mkdir -p $home/verify && tar -xf /share/verify.tar -C $home/verify
done
chown -R bob:bob /home/bob/verify
cat > /share/run-command.sh <<'RUN'
cd ~/verify || exit 2
export PATH=/opt/verify-venv/bin:$PATH
echo "# $(id -un) in cgroup $(cut -d: -f3 /proc/self/cgroup), XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-unset}"
start=$(date +%s.%N)
bash -c "$(cat /share/command)"
rc=$?
echo "rc=$rc wall=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")s"
RUN
leftovers() {
  found=$(find /sys/fs/cgroup -type d \( -name 'verify-[0-9]*' -o -name verify-leaf \) 2>/dev/null)
  echo "# cgroups named verify-* left in the tree after $1: ${found:-none}"
}
who=$(cat /share/who)
if [ "$who" != user ]; then
  bash /share/run-command.sh > $out/root.log 2>&1
  leftovers root >> $out/root.log
fi
if [ "$who" != root ]; then
  runuser -l bob -c 'bash /share/run-command.sh' > $out/user.log 2>&1
  sleep 2            # logind closes the session; systemd stops the scopes it emptied
  leftovers bob >> $out/user.log
fi
INSIDE

echo "booting the VM ($VM, console in $VM/console.log)"
set +e
timeout "${VERIFY_VM_TIMEOUT:-3000}" bash "$REPO/ci/platforms/vm/boot.sh" > "$VM/console.log" 2>&1 < /dev/null
booted=$?
set -e
if [ ! -f "$share/inside.log" ]; then
  echo "run.sh: the VM did not run the command (qemu exit $booted; see $VM/console.log)" >&2; exit 2
fi
status=0
for part in root user; do
  [ -f "$share/out/$part.log" ] || continue
  echo "=== as $part"
  cat "$share/out/$part.log"
  grep -q '^rc=0 ' "$share/out/$part.log" || status=1
done
if grep -qv '^vm rc=0$' <(tail -1 "$share/inside.log"); then cat "$share/inside.log"; status=2; fi
exit $status
