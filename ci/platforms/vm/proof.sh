# verify's cgroups in the VM, run from the checkout by run.sh:
#   bash ci/platforms/vm/run.sh --copy HOSTILE -- bash ci/platforms/vm/proof.sh /share/copy/hostile
# HOSTILE: arrows entries memhog, shmhog, forkbomb, pyforkbomb and daemon (a 40 x 64 MiB
# Python hog, 2.5 GiB into /dev/shm, bash and Python fork bombs, setsid daemons).
# Prints the cgroup set-up verify gets, each entry's verdict with --memory 256 (--time 5,
# and 30 for the hogs: software emulation is slow), what is alive and left after a verify
# killed with SIGKILL during a run, a stale scope the next verify empties, and
# bench_cgroup's figures.
hostile=${1:?usage: proof.sh HOSTILE_ENTRIES_DIR}
lingering=$(dirname "$0")/lingering
echo "root cgroup's subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
python3 - <<'PY'
from verify.runner import cgroup
print("setup:", cgroup.probed_setup())
print("reason:", repr(cgroup.unavailable_reason()))
print("verify is now in:", open("/proc/self/cgroup").read().strip())
PY
for e in memhog shmhog forkbomb pyforkbomb daemon memhog:30 shmhog:30; do
  limit=${e#*:}; [ "$limit" = "$e" ] && limit=5; e=${e%:*}
  echo -n "(--time $limit) "
  timeout 300 verify check $hostile/$e --case g03-3x3 --memory 256 --time $limit --format json > ~/$e.json 2> ~/$e.err
  code=$?
  python3 - "$e" "$code" ~/$e.json <<'PY'
import json, sys
name, code, path = sys.argv[1:]
try:
    report = json.load(open(path))
except ValueError as error:
    print(f"--- {name}: exit {code}, no JSON ({error})"); sys.exit()
case = report["entries"][0]["cases"][0]
verdict = case["verdict"]
isolation = report.get("isolation") or case.get("isolation") or report.get("summary", "")
print(f"--- {name}: exit {code}; {isolation}; {verdict['status']}: {verdict['message'][:110]}")
PY
done
echo "processes of the entries still alive: $(pgrep -c -f 'sleep 30[0-9][0-9]|pf\.py|/m\.py|/s\.py|f\.sh')"
echo "--- a verify killed with SIGKILL during a run whose daemon lives on (--sandbox none):"
verify check $lingering --case g03-3x3 --memory 256 --time 100 --sandbox none > /dev/null 2>&1 &
victim=$!
for i in $(seq 300); do find /sys/fs/cgroup -name 'verify-*-????????' -type d | grep -q . && break; sleep 0.2; done
sleep 3
echo "its run group before the kill: $(find /sys/fs/cgroup -name 'verify-*-????????' -type d | sed 's#/sys/fs/cgroup##')"
echo "its processes alive before the kill: $(pgrep -c -f 'sleep 3072')"
kill -9 $victim; wait $victim 2>/dev/null
sleep 2
echo "after the kill: $(find /sys/fs/cgroup -type d -name 'verify-[0-9]*' | sed 's#/sys/fs/cgroup##' | tr '\n' ' ')"
echo "its processes alive: $(pgrep -c -f 'sleep 3072')"
timeout 300 verify check $hostile/memhog --case g03-3x3 --memory 256 --time 5 > /dev/null 2>&1
sleep 2
echo "after the next verify: $(find /sys/fs/cgroup -type d -name 'verify-[0-9]*' | sed 's#/sys/fs/cgroup##' | tr '\n' ' ')"
echo "its processes alive: $(pgrep -c -f 'sleep 3072')"
echo "--- a stale scope as a killed verify leaves it"
# a stale scope as a killed verify leaves it: named verify-<dead tag>.scope, a process in its run group
user=; [ "$(id -u)" != 0 ] && user=--user
systemd-run $user --scope --unit verify-99999-1.scope -p Delegate=yes --quiet sleep 3073 &
sleep 3
scope=$(find /sys/fs/cgroup -type d -name verify-99999-1.scope)
mkdir "$scope/verify-99999-1-0a1b2c3d" && echo "$(pgrep -f 'sleep 3073')" > "$scope/verify-99999-1-0a1b2c3d/cgroup.procs"
echo "before: $(find /sys/fs/cgroup -type d -name 'verify-[0-9]*' | sed 's#/sys/fs/cgroup##' | tr '\n' ' '); alive: $(pgrep -c -f 'sleep 3073')"
python3 -c "
from verify.runner import cgroup
print('setup:', cgroup.probed_setup())"
sleep 2
echo "after: $(find /sys/fs/cgroup -type d -name 'verify-[0-9]*' | sed 's#/sys/fs/cgroup##' | tr '\n' ' '); alive: $(pgrep -c -f 'sleep 3073')"
echo "--- bench_cgroup"
timeout 900 python3 tests/benchmarks/bench_cgroup.py --repeat 30 --runs 3
