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
# Writes: the Markdown report appended to $GITHUB_STEP_SUMMARY (or, when there is none,
# one escaped line saying why nothing was judged: never the raw JSON), a JUnit report at
# $RUNNER_TEMP/verify-junit.xml, and the outputs passed=, failed= (entries, digits only)
# and report= (the JUnit path) appended to $GITHUB_OUTPUT. verify's output in the log is
# inside ::stop-commands::, so nothing an entry controls is read as a workflow command.
# Exit code: verify check's (0 every entry accepted, 1 some entry failed, 2 bad input, or
# a pull request that edits an entry and what judges it: see docs/ci.md).
set -uo pipefail

VERIFY=${VERIFY:-verify}
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
outputs=${GITHUB_OUTPUT:-/dev/null}
junit="$temp/verify-junit.xml"
json="$temp/verify-report.json"
markdown="$temp/verify-summary.md"
errors="$temp/verify-errors.txt"
rm -f "$junit" "$json" "$markdown" "$errors"

# one line NAME=VALUE per output; a value never holds a newline (it would start another output)
output() { printf '%s=%s\n' "$1" "${2//[$'\n\r']/}" >>"$outputs"; }

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
        # shellcheck disable=SC2016  # the backticks are Markdown's, not a command
        printf '**verify**: no entries under `submissions/`.\n' >>"$summary"
        output passed 0; output failed 0; output report ""
        exit 0
    fi
fi

# What verify prints may quote what entries control (names, messages): GitHub must not read
# any of it as a workflow command (::set-output, ::add-mask, ::error, ...), so commands stop
# until a token no entry can know.
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "::stop-commands::$token"
"$VERIFY" check "${entries[@]}" "${args[@]}" --format json \
    --write "markdown=$markdown" --write "junit=$junit" >"$json" 2>"$errors"
status=$?
cat "$errors"          # (on standard output: inside the stop-commands stretch, in order)
# Show the run in the log, and what GitHub shows on the pull request's page.
[[ -s "$markdown" ]] && cat "$markdown"
echo "::$token::"

read -r passed failed < <(python3 - "$json" "$errors" "$markdown" "$summary" <<'PY'
import json, re, sys

report_path, errors_path, markdown_path, summary_path = sys.argv[1:5]


def text_of(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def inline(line):
    """One line as inert Markdown: controls shown as escapes, every ASCII punctuation escaped."""
    line = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]",
                  lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                  line)
    return re.sub(r"[!-/:-@\[-`{-~]", lambda m: "\\" + m.group(), line)


printed = text_of(report_path)
try:
    report = json.loads(printed)
    entries = report.get("entries", []) if isinstance(report, dict) else []
except ValueError:      # verify printed a line, not a report: nothing changed, or it stopped
    report, entries = None, []
markdown = text_of(markdown_path)
with open(summary_path, "a", encoding="utf-8") as summary:
    summary.write("## verify\n\n")
    if markdown.strip():
        summary.write(markdown.rstrip("\n") + "\n")
    else:               # never the raw report: one line saying why nothing was judged
        said = [line for line in text_of(errors_path).splitlines() if line.strip()]   # its error: the last line
        said = said[-1:] or [line for line in printed.splitlines() if line.strip()][:1]  # else what it printed
        summary.write("**verify** judged nothing: " + inline(said[0] if said else "no output") + "\n")
    summary.write("\n")
passed = sum(1 for e in entries if isinstance(e, dict) and e.get("passed") is True)
print(passed, len(entries) - passed)
PY
)
[[ "${passed:-}" =~ ^[0-9]+$ ]] || passed=0
[[ "${failed:-}" =~ ^[0-9]+$ ]] || failed=0
output passed "$passed"
output failed "$failed"
if [[ -s "$junit" ]]; then output report "$junit"; else output report ""; fi
echo "verify: entries passed: $passed, failed: $failed (exit code $status)"
exit "$status"
