"""action.yml and the example workflows: valid for GitHub (SchemaStore's GitHub Action and workflow
schemas, as check-jsonschema ships them), the contract inputs, injection-safe steps, least permissions,
and no checkout of PR code on `pull_request_target`."""
from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
LEAST = {"contents": "read", "pull-requests": "write", "issues": "write", "checks": "write", "actions": "read"}


def schema(name: str) -> jsonschema.Draft7Validator:
    raw = resources.files("check_jsonschema.builtin_schemas.vendor").joinpath(name).read_text("utf-8")
    return jsonschema.Draft7Validator(json.loads(raw))


def load(path: Path) -> dict:
    # `on:` is YAML 1.1's boolean `True` to PyYAML; GitHub reads it as the key "on".
    data = yaml.safe_load(path.read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


@pytest.fixture(scope="module")
def action() -> dict:
    return load(ROOT / "action.yml")


def test_action_yml_is_a_valid_github_action(action):
    errors = [e.message for e in schema("github-actions.json").iter_errors(action)]
    assert errors == []


def test_the_contract_inputs_and_the_entry_point(action):
    inputs = action["inputs"]
    assert {"config", "fail-on", "dry-run"} <= set(inputs)
    assert inputs["config"]["default"] == ".github/recipe-review.yml"
    assert inputs["fail-on"]["default"] == "blocking" and inputs["dry-run"]["default"] == "false"
    assert action["runs"]["using"] == "composite"
    review = next(s for s in action["runs"]["steps"] if s.get("id") == "review")
    assert review["run"].strip().endswith("recipe-review\" action")
    # Every input reaches the program as an environment variable (bot/action.py reads INPUT_*).
    for name in inputs:
        if name in ("github-token", "python-version"):
            continue
        assert review["env"][f"INPUT_{name.upper().replace('-', '_')}"] == f"${{{{ inputs.{name} }}}}"
    assert review["env"]["GITHUB_TOKEN"] == "${{ inputs.app-token || inputs.github-token }}"


def test_no_step_splices_an_expression_into_a_script(action):
    """Inputs in `run:` would be script injection; they go through `env:` instead."""
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step


def test_the_action_installs_its_own_code_not_the_prs(action):
    install = next(s for s in action["runs"]["steps"] if s.get("name") == "Install recipe-review")
    assert '"$GITHUB_ACTION_PATH"' in install["run"]
    assert not any("actions/checkout" in s.get("uses", "") for s in action["runs"]["steps"])


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_example_workflows_are_valid_and_ask_for_the_least(path):
    wf = load(path)
    assert [e.message for e in schema("github-workflows.json").iter_errors(wf)] == []
    assert wf["permissions"] == {}  # nothing at the top; each job asks for what it uses
    for job in wf["jobs"].values():
        perms = job["permissions"]
        assert "write-all" not in str(perms) and all(v in ("read", "write") for v in perms.values())
        uses = [s.get("uses", "") for s in job["steps"]]
        if any(u.startswith("<owner>/recipe-review@") for u in uses):
            assert perms == LEAST, path.name
        else:  # the code-scanning example
            assert perms == {"contents": "read", "security-events": "write"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_pull_request_target_never_checks_out_the_pr(path):
    wf = load(path)
    if "pull_request_target" not in wf["on"]:
        return
    for job in wf["jobs"].values():
        assert not any("actions/checkout" in s.get("uses", "") for s in job["steps"])


def test_both_triggers_have_an_example():
    triggers = {t for p in WORKFLOWS for t in load(p)["on"]}
    assert {"pull_request", "pull_request_target", "issue_comment"} <= triggers


def test_the_readme_documents_the_action_and_the_hooks():
    readme = (ROOT / "README.md").read_text()
    assert "uses: <owner>/recipe-review@<ref>" in readme
    snippet = re.search(r"```yaml\n(repos:\n.*?)```", readme, re.S)
    assert snippet, "the README has a ready .pre-commit-config.yaml snippet"
    cfg = yaml.safe_load(snippet.group(1))
    ids = {h["id"] for r in cfg["repos"] for h in r["hooks"]}
    assert ids == {"recipe-review", "recipe-review-fix"}


PINNED = re.compile(r"^\s*(?:- )?uses: (?P<action>[\w.-]+/[\w./-]+)@(?P<ref>\S+)(?:\s+#\s*(?P<comment>.*))?$")
FILES = [ROOT / "action.yml", *WORKFLOWS]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_third_party_actions_are_pinned_by_commit_sha_with_the_tag_in_a_comment(path):
    uses = [m for m in map(PINNED.match, path.read_text().splitlines()) if m]
    for m in uses:
        if m["action"] == "<owner>/recipe-review" or m["action"].startswith("<owner>/"):
            # The placeholder cannot be pinned as written; the line says so and how.
            assert m["ref"] == "<ref>" and "zizmor: ignore[unpinned-uses]" in (m["comment"] or "")
            continue
        assert re.fullmatch(r"[0-9a-f]{40}", m["ref"]), f"{path.name}: {m['action']}@{m['ref']} is not a commit SHA"
        assert re.fullmatch(r"v\d+(\.\d+){0,2}", (m["comment"] or "").strip()), f"{path.name}: no tag comment"
    text = path.read_text()
    assert "<owner>/recipe-review@<ref>" not in text or "cannot be SHA-pinned" in text


def test_the_action_leaves_the_callers_python_alone_and_installs_only_hashed_artifacts(action):
    steps = action["runs"]["steps"]
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["update-environment"] is False or setup["with"]["update-environment"] == "false"
    install = next(s for s in steps if s.get("name") == "Install recipe-review")
    assert install["env"]["PYTHON"] == f"${{{{ steps.{setup['id']}.outputs.python-path }}}}"
    run = install["run"]
    assert 'venv="$RUNNER_TEMP/recipe-review"' in run and '"$PYTHON" -m venv "$venv"' in run
    pips = [ln for ln in run.replace("\\\n", " ").splitlines() if "pip install" in ln]
    assert len(pips) == 2
    assert "--require-hashes" in pips[0] and '-r "$GITHUB_ACTION_PATH/requirements.txt"' in pips[0]
    assert "--no-deps" in pips[1] and "--no-build-isolation" in pips[1]  # nothing resolved or fetched again


def test_the_lock_file_pins_every_runtime_dependency_with_hashes():
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins: dict[str, tuple[str, int]] = {}
    current = None
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            current = canonicalize_name(m.group(1))
            pins[current] = (m.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            pins[current] = (pins[current][0], pins[current][1] + 1)
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    build = [ln.strip() for ln in (ROOT / "requirements.in").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert any(b.startswith("setuptools") for b in build)  # the build backend, for --no-build-isolation
    for dep in [*deps, *build]:
        req = Requirement(dep)
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in requirements.txt: regenerate it (its header says how)"
        assert req.specifier.contains(pins[name][0], prereleases=True), f"{req.name}=={pins[name][0]} vs {dep}"
    assert all(n > 0 for _, n in pins.values()), "every pin carries its artifacts' hashes"
