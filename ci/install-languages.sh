#!/usr/bin/env bash
# The sandbox and every language the bundled entries and the tests use, from Debian's
# packages (and Vyxal from PyPI): what `verify check submissions/*/*` needs on a fresh
# machine. Installs nothing that is already there; without apt-get, or not as root, it
# says what to install and leaves it to you (`verify langs` then says what is missing).
set -euo pipefail
# the sandbox (python3-seccomp: the filter for a normal user's system python, which the
# tests run verify with through runuser), the languages of the first bundled entries,
# and chromium (the browser the HTML site's tests drive: the system build, no download),
# with what Debian recommends
packages=(bubblewrap libseccomp2 python3-seccomp perl nodejs gcc g++ openjdk-17-jdk-headless tcl8.6 mawk gawk bash chromium)
# the other languages of verify/runner/languages.toml, without what they merely recommend
lean_packages=(ruby lua5.4 php-cli golang-go ghc ocaml-nox guile-3.0 gforth elixir sed dc bc zsh dash r-base-core)

not_installed() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
    done
}
mapfile -t missing < <(not_installed "${packages[@]}")
# (a rustc every user can run: one under root's 0700 home, as rustup puts it, is out of a
# normal user's reach, and of a fresh uid's without bubblewrap's mounts)
[ -x /usr/bin/rustc ] || missing+=(rustc)
mapfile -t missing_lean < <(not_installed "${lean_packages[@]}")
if [ $((${#missing[@]} + ${#missing_lean[@]})) -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        [ ${#missing[@]} -eq 0 ] || apt-get install -y -qq "${missing[@]}" >/dev/null
        [ ${#missing_lean[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${missing_lean[@]}" >/dev/null
    else
        echo "install-languages: not installed here (apt-get as root would): ${missing[*]} ${missing_lean[*]}" >&2
    fi
fi
# Vyxal, from PyPI, in a folder of its own (it pins numpy < 2): languages.toml runs it from there
if [ ! -f /opt/vyxal/vyxal/__main__.py ]; then
    if [ -w /opt ] || [ "$(id -u)" = 0 ]; then
        python3 -m pip install -q --target /opt/vyxal vyxal==2.21.5
    else
        echo "install-languages: Vyxal not installed (python3 -m pip install --target /opt/vyxal vyxal==2.21.5)" >&2
    fi
fi
