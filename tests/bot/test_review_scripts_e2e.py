"""The App reviewing a PR that changes benchmark scripts, on the fake GitHub over real HTTP.

The first GraphQL read carries the launchers (text and file modes) and a listing of
`benchmarks/`; what the resolution then needs (the resolved scripts, their siblings, the library)
comes in exactly one more read. The reviewed script plants canaries: nothing in it may run.
"""
from __future__ import annotations

import os

from tests.bot.scenario import BotHarness
from tests.rules.scripts_helpers import LAUNCHER, LIB, RUNNERS, key, master, sglang_script

SCRIPT = "benchmarks/single_node/fixed_seq_len/glm5_fp8_b200_mtp.sh"
CFG = "configs/nvidia-master.yaml"


def _main_files() -> dict:
    files = {"configs/runners.yaml": RUNNERS, "runners/launch_b200-nb.sh": LAUNCHER, "benchmarks/benchmark_lib.sh": LIB,
             CFG: master(key("glm5-fp8-b200-sglang-mtp", spec="mtp"))}
    for p in ("fp4", "bf16"):
        files[f"benchmarks/single_node/fixed_seq_len/glm5_{p}_b200_mtp.sh"] = sglang_script(
            mtp=True, env="export SGLANG_ENABLE_SPEC_V2=1")
    return files


def canary_script(tmp) -> str:
    paths = [tmp / f"canary{i}" for i in range(6)]
    planted = "\n".join([
        f'X=$(touch {paths[0]})',
        f'Y=`touch {paths[1]}`',
        f'eval "touch {paths[2]}"',
        f"cat > {paths[3]} <<EOF\nhello\nEOF",
        f'bash -c "touch {paths[4]}"',
        f'source <(echo touch {paths[5]})',
    ])
    return sglang_script(mtp=True, env=planted), paths


def test_script_pr_reviewed_with_one_extra_read_and_nothing_run(tmp_path, git_repo, fake_github):
    git_repo.commit(_main_files(), "main")
    link = git_repo.path / "runners" / "launch_b200-dgxc-slurm.sh"
    os.symlink("launch_b200-nb.sh", link)
    git_repo.git("add", "runners/launch_b200-dgxc-slurm.sh")
    git_repo.git("commit", "-qm", "dgxc-slurm runs the nb launcher")
    text, canaries = canary_script(tmp_path)
    git_repo.commit({SCRIPT: text}, "glm5 fp8 b200 mtp", branch="pr")
    fake_github.add_pr(31, base="main", head="pr", author="contributor")
    h = BotHarness(tmp_path, fake_github.url, 31)
    try:
        h.deliver("pull_request", h.payload("opened"))
        state = h.settle()
    finally:
        h.close()
    assert not [p for p in canaries if p.exists()], "a planted command ran"
    graphql = [c for c in state["calls"] if c["path"] == "/graphql"]
    assert len(graphql) == 2, [c["path"] for c in state["calls"]]  # snapshot + the paths resolution needs
    rr411 = [c for c in state["review_comments"] if "`RR411`" in c["body"]]
    assert len(rr411) == 1 and rr411[0]["path"] == SCRIPT, [c["body"][:80] for c in state["review_comments"]]
    (run,) = [r for r in state["check_runs"] if r["name"] == "recipe-review"]
    assert run["conclusion"] == "failure"
    (summary,) = [c for c in state["issue_comments"] if "<!-- recipe-review:summary -->" in c["body"]]
    # The resolution reached the script through both launchers, the symlink followed.
    assert "launch_b200-dgxc-slurm.sh" in summary["body"] or "glm5_fp8_b200_mtp.sh" in summary["body"]


def test_pr_without_scripts_or_configs_reads_no_listing(tmp_path, git_repo, fake_github):
    git_repo.commit(_main_files(), "main")
    git_repo.commit({"docs/x.md": "hi\n"}, "docs", branch="pr")
    fake_github.add_pr(32, base="main", head="pr")
    h = BotHarness(tmp_path, fake_github.url, 32)
    try:
        h.deliver("pull_request", h.payload("opened"))
        state = h.settle()
    finally:
        h.close()
    assert sum(1 for c in state["calls"] if c["path"] == "/graphql") == 1


def test_check_run_summary_is_clipped_by_bytes():
    """GitHub limits a check run's summary to 65,535 bytes: multi-byte text (→, –) must be clipped by
    bytes, or the check run is refused with a 422."""
    from bot import render
    text = "key → runner → launcher – script\n" * 4000
    clipped = render._clip(text, render.MAX_CHECK_SUMMARY)
    assert len(clipped.encode("utf-8")) <= render.MAX_CHECK_SUMMARY and clipped.endswith("size limit)\n")
