#!/usr/bin/env bash
# The logic of the verify GitHub Action (action.yml), runnable outside GitHub.
#
# Run from the root of a contest repository (submissions/<contest>/<entry>/,
# testcases/<contest>/). Reads the action's inputs and GitHub's variables from the
# environment:
#   INPUT_ENTRIES   entry folders (globs allowed); empty: on pull_request the entries
#                   the pull request changed, otherwise every entry under submissions/
#   INPUT_BASE      the git ref to compare with (default: origin/$GITHUB_BASE_REF, or the
#                   local branch $GITHUB_BASE_REF when there is no such remote branch)
#   INPUT_TIME, INPUT_MEMORY   limits per run (seconds, MiB); empty: verify's defaults
#   INPUT_SANDBOX   bwrap (default) | auto | none
#   GITHUB_EVENT_NAME, GITHUB_BASE_REF, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP
# Writes: the Markdown report appended to $GITHUB_STEP_SUMMARY, a JUnit report at
# $RUNNER_TEMP/verify-junit.xml, and the outputs passed=, failed= (entries) and
# report= (the JUnit path) appended to $GITHUB_OUTPUT.
# Exit code: verify check's (0 every entry accepted, 1 some entry failed, 2 bad input).
set -uo pipefail

VERIFY=${VERIFY:-verify}
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
outputs=${GITHUB_OUTPUT:-/dev/null}
junit="$temp/verify-junit.xml"
json="$temp/verify-report.json"
markdown="$temp/verify-summary.md"
rm -f "$junit" "$json" "$markdown"

output() { printf '%s=%s\n' "$1" "$2" >>"$outputs"; }

args=(--sandbox "${INPUT_SANDBOX:-bwrap}")
[[ -n "${INPUT_TIME:-}" ]] && args+=(--time "$INPUT_TIME")
[[ -n "${INPUT_MEMORY:-}" ]] && args+=(--memory "$INPUT_MEMORY")

entries=()
if [[ -n "${INPUT_ENTRIES:-}" ]]; then
    # shellcheck disable=SC2206  # word splitting and globbing wanted: a list of folders
    entries=(${INPUT_ENTRIES})
elif [[ "${GITHUB_EVENT_NAME:-}" == pull_request* ]]; then
    base=${INPUT_BASE:-}
    if [[ -z "$base" ]]; then
        if [[ -z "${GITHUB_BASE_REF:-}" ]]; then
            echo "verify: a pull_request event without GITHUB_BASE_REF; set INPUT_BASE" >&2
            exit 2
        fi
        base="origin/$GITHUB_BASE_REF"
        if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
            # a shallow clone: fetch the base branch (checkout with fetch-depth: 0 avoids this)
            git fetch --quiet --no-tags origin "+refs/heads/$GITHUB_BASE_REF:refs/remotes/origin/$GITHUB_BASE_REF" 2>/dev/null ||
                true
        fi
        if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
            base=$GITHUB_BASE_REF   # a local branch: the script run by hand, or a test
        fi
    fi
    args+=(--changed-since "$base")
else
    for toml in submissions/*/*/entry.toml; do
        [[ -e "$toml" ]] && entries+=("${toml%/entry.toml}")
    done
    if ((${#entries[@]} == 0)); then
        echo "verify: no entries under submissions/ (expected submissions/<contest>/<entry>/entry.toml)"
        printf '**verify**: no entries under `submissions/`.\n' >>"$summary"
        output passed 0; output failed 0; output report ""
        exit 0
    fi
fi

"$VERIFY" check "${entries[@]}" "${args[@]}" --format json \
    --write "markdown=$markdown" --write "junit=$junit" >"$json"
status=$?

# Show the run in the log, and what GitHub shows on the pull request's page.
if [[ -s "$markdown" ]]; then
    cat "$markdown"
    { printf '## verify\n\n'; cat "$markdown"; printf '\n'; } >>"$summary"
else
    # nothing to judge (no entry changed), or verify stopped before judging
    cat "$json"
    { printf '## verify\n\n'; cat "$json"; printf '\n'; } >>"$summary"
fi

read -r passed failed < <(python3 - "$json" <<'PY'
import json, sys
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    entries = report.get("entries", []) if isinstance(report, dict) else []
except (OSError, ValueError):
    entries = []
passed = sum(1 for e in entries if e.get("passed"))
print(passed, len(entries) - passed)
PY
)
output passed "${passed:-0}"
output failed "${failed:-0}"
if [[ -s "$junit" ]]; then output report "$junit"; else output report ""; fi
echo "verify: entries passed: ${passed:-0}, failed: ${failed:-0} (exit code $status)"
exit "$status"
