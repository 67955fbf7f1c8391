#!/usr/bin/env bash
# Usage: bash ci/platforms/container.sh [--work DIR] [--rootfs DIR] [PLATFORM...]
#
# Measures verify in Podman containers, each as root and as a normal user inside
# (inside.sh, then measure.sh): records in WORK/out/PLATFORM/PLATFORM-{root,user}.json,
# with the flags used in WORK/out/PLATFORM/flags, for table.py. PLATFORM is any of
# (default: all five)
#   podman-rootful-default       rootful Podman, default security settings
#   podman-rootful-recommended   rootful Podman with the flags docs/platforms.md recommends
#   podman-rootless-default      rootless Podman (user verify-podman), default settings
#   podman-rootless-recommended  rootless Podman with the recommended flags
#   podman-recipe                rootful Podman, the recommended flags, the image built from
#                                the Containerfile: verify as the recipe runs it, as its
#                                normal user only
# The image is a Debian rootfs (ROOTFS, default WORK/rootfs, made by rootfs.sh with
# debootstrap when missing: no registry image is pulled) imported as
# localhost/verify-bookworm:TAG (TAG from the rootfs's path), again whenever the rootfs is
# newer than the image. verify gets in as a `git archive` of HEAD and wheels in a read-only
# share (the recipe's image is built from them); the containers have no network. $VERIFY_CONFORMANCE_ARGS goes in to
# measure.sh. Run as root (apt-get install -y podman runc uidmap debootstrap first); WORK
# defaults to /tmp/verify-platforms.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/platforms/share.sh
source "$here/share.sh"
work=/tmp/verify-platforms
rootfs=
platforms=()
while [ $# -gt 0 ]; do
    case $1 in
        --work) work=$2; shift 2 ;;
        --rootfs) rootfs=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -/p' "$0" | sed 's/^# \{0,1\}//;/^set -/d'; exit 0 ;;
        podman-rootful-default|podman-rootful-recommended|podman-rootless-default|podman-rootless-recommended|\
        podman-recipe)
            platforms+=("$1"); shift ;;
        *) echo "container: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ ${#platforms[@]} -gt 0 ] || platforms=(podman-rootful-default podman-rootful-recommended
                                         podman-rootless-default podman-rootless-recommended podman-recipe)
rootfs=${rootfs:-$work/rootfs}
# one image per rootfs, so runs from two rootfs folders at once do not replace each other's
tag=$(realpath -m "$rootfs" | sha256sum | cut -c1-12)
image=localhost/verify-bookworm:$tag
recipe_image=localhost/verify-recipe:$tag
rootless_user=verify-podman
[ "$(id -u)" = 0 ] || { echo "container: run it as root (it imports images and makes the rootless user)" >&2; exit 2; }
command -v podman >/dev/null || { echo "container: podman is not installed (apt-get install -y podman runc uidmap)" >&2; exit 2; }

# What every container here gets, default or not: no network; runc where it is installed
# (crun refuses a hybrid cgroup v1 layout); nofile and nproc limits the host accepts (Podman's
# defaults are above some hosts' hard limits).
runtime_flags=()
[ -x /usr/sbin/runc ] && runtime_flags=(--runtime /usr/sbin/runc)
base_flags=(--rm --network none --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 ${runtime_flags[@]+"${runtime_flags[@]}"})

# The recommended flags, what bubblewrap and a cgroup per run need and nothing more:
# - unmask=/proc/*: Podman covers parts of /proc (kcore, keys, sys, ...); the kernel refuses
#   a new proc mount (bubblewrap's --proc, in its PID namespace) while any is covered;
# - a writable cgroup tree of the container's own: on cgroup v2 a private cgroup namespace
#   with /sys/fs/cgroup unmasked (mounted read-write); on cgroup v1 there is no namespaced
#   way, only the host's hierarchies mounted read-write (root inside then writes the
#   host's cgroups: see docs/platforms.md).
recommended_flags() {
    local flags=(--security-opt 'unmask=/proc/*')
    if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
        flags+=(--cgroupns=private --security-opt unmask=/sys/fs/cgroup)
    elif [ "$1" = rootful ]; then
        flags+=(-v /sys/fs/cgroup:/sys/fs/cgroup:rw)
    fi
    printf '%s\n' "${flags[@]}"
}

as_rootless() {
    local uid
    uid=$(id -u "$rootless_user")
    (cd / && runuser -u "$rootless_user" -- env HOME="/home/$rootless_user" XDG_RUNTIME_DIR="$work/run-$uid" "$@")
}

podman_for() {  # rootful|rootless, then podman's arguments
    local mode=$1
    shift
    if [ "$mode" = rootful ]; then podman "$@"; else as_rootless podman "$@"; fi
}

make_rootless_user() {
    id "$rootless_user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$rootless_user"
    grep -q "^$rootless_user:" /etc/subuid || usermod --add-subuids 300000-365535 "$rootless_user"
    grep -q "^$rootless_user:" /etc/subgid || usermod --add-subgids 300000-365535 "$rootless_user"
    local uid
    uid=$(id -u "$rootless_user")
    install -d -o "$rootless_user" -m 700 "$work/run-$uid"
    # overlay in the user namespace (kernel 5.13+); Podman's fallback, vfs, copies the image per run
    install -d -o "$rootless_user" "/home/$rootless_user/.config" "/home/$rootless_user/.config/containers"
    [ -f "/home/$rootless_user/.config/containers/storage.conf" ] ||
        printf '[storage]\ndriver = "overlay"\n' > "/home/$rootless_user/.config/containers/storage.conf"
}

import_image() {  # rootful|rootless: (re)import the rootfs when the image is missing or older
    local mode=$1 created
    created=$(podman_for "$mode" image inspect --format '{{.Created.Unix}}' "$image" 2>/dev/null || echo 0)
    if [ "$created" -lt "$(stat -c %Y "$rootfs/.done")" ]; then
        echo "container: importing $rootfs as $image ($mode)"
        tar -C "$rootfs" -c . | podman_for "$mode" import - "$image" >/dev/null
    fi
}

[ -f "$rootfs/.done" ] || bash "$here/rootfs.sh" "$rootfs"
# a share of this run's own: a run at the same time keeps its commit under test
mkdir -p "$work"
share=$(mktemp -d "$work/share.XXXXXX")
trap 'rm -rf "$share"' EXIT
prepare_share "$share"
mkdir -p "$work/out"
build_recipe() {  # the Containerfile of HEAD, on the rootfs image, verify from the share's wheels
    local context=$work/recipe-context
    rm -rf "$context"
    cp -r "$share/src" "$context"
    cp -r "$share/wheels" "$context/wheels"
    # the image a build before this one left (a tag moved to a new image leaves the old untagged)
    podman rmi -f "$recipe_image" >/dev/null 2>&1 || true
    podman build -q ${runtime_flags[@]+"${runtime_flags[@]}"} --build-arg BASE="$image" \
        --build-arg PIP_OPTIONS="--no-index --find-links /opt/verify-src/wheels" \
        -t "$recipe_image" -f "$context/Containerfile" "$context" > "$work/out/podman-recipe/build.log" 2>&1
}

for platform in "${platforms[@]}"; do
    mode=${platform#podman-}; mode=${mode%%-*}
    settings=${platform##*-}
    if [ "$platform" = podman-recipe ]; then
        rm -rf "$work/out/$platform"
        mkdir -p "$work/out/$platform"
        chmod 1777 "$work/out/$platform"   # the recipe's user, judge, writes its record there
        import_image rootful
        flags=("${base_flags[@]}")
        mapfile -t -O ${#flags[@]} flags < <(recommended_flags rootful)
        echo "container: $platform: podman build (Containerfile), then podman run ${flags[*]}"
        printf '%s\n' "podman run ${flags[*]}" > "$work/out/$platform/flags"
        start=$(date +%s)
        if build_recipe; then
            podman run "${flags[@]}" -v "$share:/share:ro" -v "$work/out/$platform:/out" -w /share/src \
                -e VERIFY_PLATFORM_COMMIT="$(cat "$share/commit")" -e VERIFY_CONFORMANCE_ARGS "$recipe_image" \
                bash /share/harness/measure.sh "$platform-user" --here /out > "$work/out/$platform/run.log" 2>&1 ||
                echo "container: $platform: podman run failed (rc=$?): $(tail -n 1 "$work/out/$platform/run.log")"
        else
            echo "container: $platform: podman build failed: $(tail -n 1 "$work/out/$platform/build.log")"
        fi
        echo "container: $platform: $(( $(date +%s) - start )) s"
        continue
    fi
    [ "$mode" = rootless ] && make_rootless_user
    import_image "$mode"
    flags=("${base_flags[@]}")
    [ "$settings" = recommended ] && mapfile -t -O ${#flags[@]} flags < <(recommended_flags "$mode")
    out=$work/out/$platform
    rm -rf "$out"
    mkdir -p "$out"
    [ "$mode" = rootless ] && chown "$rootless_user" "$out"
    echo "container: $platform: podman run ${flags[*]}"
    printf '%s\n' "podman run ${flags[*]}" > "$out/flags"
    start=$(date +%s)
    podman_for "$mode" run "${flags[@]}" -v "$share:/share:ro" -v "$out:/out" -e VERIFY_CONFORMANCE_ARGS "$image" \
        bash /share/harness/inside.sh "$platform" /share /out > "$out/run.log" 2>&1 ||
        echo "container: $platform: podman run failed (rc=$?): $(tail -n 1 "$out/run.log")"
    echo "container: $platform: $(( $(date +%s) - start )) s"
done
