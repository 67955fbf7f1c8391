#!/bin/sh
# Usage (as root, in a container): entrypoint.sh USER COMMAND...
#
# Gives USER a cgroup of its own, then runs COMMAND as USER: verify runs as a normal user,
# never as root, and still gets a cgroup per run (it makes its run groups inside the one it
# is given). Where the container's cgroup tree is read-only it says so and runs COMMAND as
# USER without one (verify then refuses unless --accounting rlimits is asked for by name).
# - cgroup v2 (the container's cgroup writable: a private cgroup namespace with
#   /sys/fs/cgroup mounted read-write): the container's processes move into a leaf, init,
#   so the container's cgroup may enable memory, pids and cpu for its children (a cgroup
#   with children's controllers holds no process), then this shell into USER's child,
#   whose folder and delegation files USER owns (cgroup-v2.rst, "Delegation Containment").
# - cgroup v1 (the host's hierarchies mounted read-write): a child of the container's own
#   group in the memory, pids and cpuacct hierarchies, owned by USER.
set -eu
user=${1:?usage: entrypoint.sh USER COMMAND...}
shift
[ $# -gt 0 ] || { echo "entrypoint: no COMMAND to run as $user" >&2; exit 2; }
root=/sys/fs/cgroup
delegate_v2() {
    own=$root$(sed -n 's/^0:://p' /proc/self/cgroup)
    own=${own%/}
    mkdir -p "$own/init" "$own/$user" || return 1
    procs=$(cat "$own/cgroup.procs")   # read whole before any moves out of it
    printf '%s\n' "$procs" | while read -r pid; do echo "$pid" > "$own/init/cgroup.procs" 2>/dev/null || true; done
    echo "+memory +pids +cpu" > "$own/cgroup.subtree_control" || return 1
    for file in "" /cgroup.procs /cgroup.subtree_control /cgroup.threads; do
        chown "$user" "$own/$user$file" || return 1
    done
    echo $$ > "$own/$user/cgroup.procs" || return 1
}
delegate_v1() {
    for controller in memory pids cpuacct; do
        own=$(awk -F: -v c="$controller" '$2 ~ "(^|,)" c "(,|$)" {print $3}' /proc/self/cgroup)
        group=$root/$controller${own%/}/$user
        mkdir -p "$group" || return 1
        chown -R "$user" "$group" || return 1
        echo $$ > "$group/cgroup.procs" || return 1
    done
}
if [ "$(stat -fc %T $root)" = cgroup2fs ]; then
    if ! delegate_v2 2>/dev/null; then
        echo "entrypoint: the container's cgroup is read-only: no cgroup for $user" \
             "(podman run --cgroupns=private --security-opt unmask=/sys/fs/cgroup)" >&2
    fi
elif ! delegate_v1 2>/dev/null; then
    echo "entrypoint: the cgroup v1 hierarchies are read-only: no cgroup for $user" \
         "(podman run -v /sys/fs/cgroup:/sys/fs/cgroup:rw)" >&2
fi
exec runuser -u "$user" -- env HOME="$(getent passwd "$user" | cut -d: -f6)" "$@"
