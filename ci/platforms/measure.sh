#!/usr/bin/env bash
# Usage: bash measure.sh PLATFORM SHARE OUT
#
# Measures verify on the machine it runs on, as the user who runs it: installs verify from
# SHARE/src (a `git archive` of the commit under test, read-only is fine) and the Python
# wheels in SHARE/wheels into a fresh venv (no network needed), runs the conformance suite
# (ci/conformance.py, every isolation and accounting mode this machine offers) and
# `verify check submissions/*/*` with its wall time (again with --accounting rlimits where
# the default refuses, exit 2), and writes OUT/PLATFORM.json, the
# record ci/platforms/table.py reads. Its logs go beside it (OUT/PLATFORM.*.log).
# SHARE "--here": verify is installed already (on PATH) and the current folder is its
# checkout (the VM of vm/run.sh). OUT "-": the record is printed as one line,
# "platform-record: JSON", and the logs go to a temporary folder. The record's commit is
# SHARE/commit's, else $VERIFY_PLATFORM_COMMIT. $VERIFY_CONFORMANCE_ARGS: more arguments
# for ci/conformance.py (e.g. "--mode bwrap-cgroup --require bwrap-cgroup").
# VERIFY_PLATFORM_CHECK=no leaves `verify check submissions/*/*` out (the VM's software
# emulation makes its wall time say little, at a cost of many minutes).
# Exit 0 when the record is written, whatever verify's verdicts were.
set -euo pipefail
platform=${1:?usage: measure.sh PLATFORM SHARE OUT}
share=${2:?usage: measure.sh PLATFORM SHARE OUT}
out=${3:?usage: measure.sh PLATFORM SHARE OUT}
checkout=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/verify-platform.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ "$share" = --here ] || share=$(cd "$share" && pwd)
if [ "$out" = - ]; then out=$work/out; fi
out=$(mkdir -p "$out" && cd "$out" && pwd)
log=$out/$platform
# verify's caches in the work folder: every platform starts cold, and nothing is left behind
export VERIFY_CACHE=$work/cache XDG_CACHE_HOME=$work/xdg-cache PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

install_rc=0
if [ "$share" = --here ]; then
    command -v verify > "$log.install.log" 2>&1 || install_rc=$?
    cp -r "$checkout" "$work/verify"
else
    cp -r "$share/src" "$work/verify"
    {
        python3 -m venv "$work/venv" &&
        "$work/venv/bin/pip" install -q --no-index --find-links "$share/wheels" "$work/verify"
    } > "$log.install.log" 2>&1 || install_rc=$?
    export PATH=$work/venv/bin:$PATH
fi
cd "$work/verify"

conformance_rc=-1
# run_check NAME [OPTION...]: `verify check submissions/*/*` timed, into WORK/NAME.{json,status}
run_check() {
    local name=$1 start rc=0
    shift
    start=$(date +%s.%N)
    verify check submissions/*/* --format json "$@" > "$work/$name.json" 2> "$log.$name.log" || rc=$?
    echo "$rc $start $(date +%s.%N)" > "$work/$name.status"
}
if [ "$install_rc" = 0 ]; then
    conformance_rc=0
    read -r -a conformance_args <<< "${VERIFY_CONFORMANCE_ARGS:-}"
    python3 ci/conformance.py ${conformance_args[@]+"${conformance_args[@]}"} --json "$work/conformance.json" \
        > "$log.conformance.log" 2>&1 || conformance_rc=$?
    if [ "${VERIFY_PLATFORM_CHECK:-yes}" != no ]; then run_check check; fi
    # refused (exit 2): how long it takes, and what it gives, where rlimits accounting is asked for by name
    [ ! -f "$work/check.status" ] || [ "$(cut -d' ' -f1 "$work/check.status")" != 2 ] ||
        run_check check-rlimits --accounting rlimits
fi

python3 - "$platform" "$out/$platform.json" "$work" "$share" "$install_rc" "$conformance_rc" "$log" "${3}" <<'PY'
import json
import os
import platform as host
import re
import sys
from pathlib import Path

name, record, work, share, install_rc, conformance_rc, log, printed = sys.argv[1:]
work_dir, share_dir = Path(work), Path(share)


def load(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def last_line(path: str) -> str:
    try:
        lines = [line for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def check_record(run: str) -> dict | None:
    """What run_check RUN left: exit code, wall time, verify's summary and isolation, or its one line."""
    try:
        rc, start, end = (work_dir / f"{run}.status").read_text().split()
    except (OSError, ValueError):
        return None
    report = load(work_dir / f"{run}.json")
    summary = report.get("summary", "") if isinstance(report, dict) else ""
    found = re.search(r"\(isolation: ([^)]*)\)", summary)
    isolation = (report.get("isolation") if isinstance(report, dict) else None) or (found.group(1) if found else "")
    failed = []
    for entry in report.get("entries", []) if isinstance(report, dict) else []:
        if entry.get("error"):
            failed.append(f"{entry.get('entry')}: {str(entry['error'])[:200]}")
        for case in entry.get("cases", []):
            verdict = case.get("verdict", {})
            if verdict.get("status") != "accepted":
                failed.append(f"{entry.get('entry')} {case.get('case')}: {verdict.get('status')}: "
                              f"{str(verdict.get('message', ''))[:200]}")
    return {"rc": int(rc), "wall_seconds": round(float(end) - float(start), 1), "summary": summary,
            "isolation": isolation, "error": last_line(f"{log}.{run}.log") if rc not in ("0", "1") else "",
            "failed": failed[:20]}


cgroup_fs = os.popen("stat -fc %T /sys/fs/cgroup 2>/dev/null").read().strip()
result = {
    "platform": name,
    "user": os.environ.get("USER") or os.popen("id -un").read().strip(),
    "uid": os.getuid(),
    "commit": read(str(share_dir / "commit")) or os.environ.get("VERIFY_PLATFORM_COMMIT", ""),
    "kernel": host.release(),
    "cgroup_fs": cgroup_fs,
    "container": os.path.exists("/run/.containerenv") or os.path.exists("/.dockerenv"),
    "install": {"rc": int(install_rc), "error": "" if install_rc == "0" else last_line(log + ".install.log")},
    "conformance": {
        "rc": int(conformance_rc),
        "report": load(work_dir / "conformance.json"),
        "error": last_line(log + ".conformance.log") if conformance_rc != "0" else "",
    },
    "check": check_record("check") or {"rc": -1, "skipped": os.environ.get("VERIFY_PLATFORM_CHECK") == "no"},
    "check_rlimits": check_record("check-rlimits"),
}
Path(record).write_text(json.dumps(result, indent=1) + "\n")
if printed == "-":
    print("platform-record: " + json.dumps(result))
PY
echo "measure: $platform as $(id -un): install rc=$install_rc, conformance rc=$conformance_rc," \
    "check: $(cut -d' ' -f1 "$work/check.status" 2>/dev/null || echo none)" >&2
