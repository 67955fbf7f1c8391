# shellcheck shell=bash
# Sourced by the platform scripts: prepare_share SHARE fills SHARE with what a machine under
# test needs to measure verify with no network: src/ (a `git archive` of HEAD of this
# checkout, so only committed code is measured), commit (its hash), wheels/ (every Python
# package verify and its build need, downloaded here from the package registry) and
# harness/ (inside.sh, measure.sh and entrypoint.sh, as they are in this working tree).
prepare_share() {
    local share=$1 checkout
    checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    rm -rf "$share/src" "$share/harness"
    mkdir -p "$share/src" "$share/wheels" "$share/harness"
    cp "$checkout"/ci/platforms/{inside,measure,entrypoint}.sh "$share/harness/"
    git -C "$checkout" archive HEAD | tar -x -C "$share/src"
    git -C "$checkout" rev-parse HEAD > "$share/commit"
    python3 -m pip download -q --disable-pip-version-check -d "$share/wheels" "$share/src" 'setuptools>=68' wheel \
        2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
    chmod -R a+rX "$share"
}
