"""`recipe-review fake-github` as a real process: prints its URL, serves, stops on SIGTERM."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import requests

from fakegithub.cli import register

# The installed console script's entry point, without relying on the script being on PATH.
CLI = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())"]


def run_in_process(argv: list[str]):
    """Parse and run `fake-github` with this module's own parser (bot.cli.main registers its
    extra commands on every call, so it can run only once per process)."""
    import argparse

    parser = argparse.ArgumentParser(prog="recipe-review")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_serves_the_scene_until_sigterm(git_repo):
    head = git_repo.commit({"a.yaml": "a: 1\n"}, "feature", branch="feature")
    proc = subprocess.Popen(
        [*CLI, "fake-github", "--port", "0", "--repo", "octo/bench",
         "--repo-dir", str(git_repo.path), "--pr", "3:main..feature", "--pr-author", "3:dana",
         "--pr-label", "3:sweep-enabled", "--pr-label", "3:full-sweep", "--collaborator", "alice:admin"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), proc.stderr.read()
        pr = requests.get(f"{url}/repos/octo/bench/pulls/3", timeout=5).json()
        assert (pr["head"]["sha"], pr["user"]["login"]) == (head, "dana")
        assert [lb["name"] for lb in pr["labels"]] == ["sweep-enabled", "full-sweep"]
        perm = requests.get(f"{url}/repos/octo/bench/collaborators/alice/permission", timeout=5).json()
        assert perm["permission"] == "admin"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err


@pytest.mark.parametrize("args,fragment", [
    (["--pr", "3:main"], "--pr expects N:BASE..HEAD"),
    (["--pr", "3:main..nope"], "unknown head revision"),
    (["--pr-author", "4:dana"], "name PRs not given with --pr"),
    (["--collaborator", "alice"], "LOGIN:PERMISSION"),
    (["--collaborator", "alice:owner"], "unknown permission"),
    (["--repo", "nope"], "OWNER/NAME"),
], ids=["pr-without-range", "unknown-head", "author-for-unknown-pr", "collaborator-without-permission",
        "bad-permission", "repo-without-owner"])
def test_cli_usage_errors(git_repo, args, fragment, capsys):
    assert run_in_process(["fake-github", "--repo-dir", str(git_repo.path), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("recipe-review: error: ") and fragment in err, err


def test_cli_usage_error_exits_2_with_the_message(tmp_path):
    proc = subprocess.run([*CLI, "fake-github", "--repo-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "is not a git repository" in proc.stderr


def test_cli_contract_holds_the_server_to_githubs_descriptions(git_repo):
    """`--contract DIR`: a body GitHub's OpenAPI request schema rejects is refused with GitHub's 422."""
    from tests.conftest import GITHUB_API_DESCRIPTIONS

    if not GITHUB_API_DESCRIPTIONS.is_dir():
        pytest.skip("GitHub's API descriptions are not present (../shared/github/api)")
    git_repo.commit({"a.yaml": "a: 1\n"}, "feature", branch="feature")
    proc = subprocess.Popen([*CLI, "fake-github", "--port", "0", "--repo-dir", str(git_repo.path),
                             "--pr", "3:main..feature", "--contract", str(GITHUB_API_DESCRIPTIONS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), proc.stderr.read()
        h = {"Authorization": "token x"}
        bad = requests.post(f"{url}/repos/octo/bench/issues/3/comments", json={"text": "hi"}, headers=h, timeout=30)
        assert bad.status_code == 422 and "'body' is a required property" in bad.json()["message"]
        ok = requests.post(f"{url}/repos/octo/bench/issues/3/comments", json={"body": "hi"}, headers=h, timeout=30)
        assert ok.status_code == 201
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)


def test_cli_contract_needs_a_directory(git_repo, tmp_path, capsys):
    assert run_in_process(["fake-github", "--repo-dir", str(git_repo.path), "--contract", str(tmp_path / "nope")]) == 2
    assert "--contract expects a directory" in capsys.readouterr().err
