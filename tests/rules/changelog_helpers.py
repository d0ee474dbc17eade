"""Small hand-written perf-changelogs for the changelog rule tests (shaped like the real file).

BASE has eight entries (#4720 ... #4857 at the end, like the tail the #4867 review saw) and two
historical irregular separators: a whitespace-only line `"  "` after #4700 and `"  \\n\\n"` after
#4710 — bytes no rule may flag or "fix".
"""
from __future__ import annotations

import difflib

from rules.changeset import ChangeSet, FileChange
from rules.runner import run

REPO = "SemiAnalysisAI/InferenceX"
PATH = "perf-changelog.yaml"
PR = 4867


def entry(key: str, pr: int | str, desc: str = "Bump the image", extra: str = "") -> str:
    """One entry's text, ending with a newline (no separator)."""
    link = pr if isinstance(pr, str) and not str(pr).isdigit() else f"https://github.com/{REPO}/pull/{pr}"
    return (f"- config-keys:\n    - {key}\n  description:\n    - \"{desc}\"\n"
            f"  pr-link: {link}\n{extra}")


# (key, pr) of the base entries, top to bottom; the last five are the ones "below" a #4867 insertion.
BASE_ENTRIES = [("dsr1-fp8-h200-sglang", 4700), ("gptoss-fp4-b200-vllm", 4710), ("kimik2.5-fp4-gb200-dynamo", 4715),
                ("dsv4-fp4-b300-vllm", 4833), ("glm5.2-fp4-b300-sglang", 4852),
                ("qwen3.5-fp8-mi355x-atom", 4857), ("minimaxm3-fp4-b200-trt", 4799), ("dsv4-fp8-h200-vllm", 4720)]
SEPARATORS = {0: "  \n", 1: "  \n\n"}  # historical irregular separators after entries 0 and 1


def build(entries, seps=None) -> str:
    seps = SEPARATORS if seps is None else seps
    out = []
    for i, (key, pr) in enumerate(entries):
        out.append(entry(key, pr))
        if i < len(entries) - 1:
            out.append(seps.get(i, "\n"))
    return "".join(out)


BASE = build(BASE_ENTRIES)
NEW = entry("dsv4-fp4-b200-vllm", PR, "Serve the TP8 arm with FULL_AND_PIECEWISE cudagraphs")


def starts(text: str) -> list[int]:
    """Character offsets of the entries' first lines."""
    out, at = [], 0
    while True:
        at = text.find("- config-keys:", at)
        if at < 0:
            return out
        if at == 0 or text[at - 1] == "\n":
            out.append(at)
        at += 1


def insert_before(text: str, index: int, new: str = NEW) -> str:
    """Insert `new` + one empty line before entry `index` (a clean splice at an entry boundary)."""
    at = starts(text)[index]
    return text[:at] + new + "\n" + text[at:]


def append(text: str, new: str = NEW) -> str:
    return text + "\n" + new


def patch_of(base: str, head: str) -> str:
    """GitHub's patch of base → head: hunks only, with git's marker after a line that has no newline."""
    lines = list(difflib.unified_diff(base.splitlines(keepends=True), head.splitlines(keepends=True), n=3))
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n"
                   for ln in lines[2:]).rstrip("\n")


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def changeset(base: str | bytes | None, head: str | bytes | None, *, status: str = "modified",
              pr: int | None = PR, repo: str | None = REPO, path: str = PATH, previous_path: str | None = None,
              title: str | None = None) -> ChangeSet:
    def enc(v):
        return v.encode() if isinstance(v, str) else v

    patch = patch_of(base, head) if isinstance(base, str) and isinstance(head, str) else None
    return ChangeSet(files=(FileChange(path, status, base=enc(base), head=enc(head), patch=patch,
                                       previous_path=previous_path),),
                     pr_number=pr, repo=repo, title=title)


def review(base, head, *rules, **kw):
    return run(changeset(base, head, **kw), rules=list(rules))


def apply_suggestion(head: str, finding) -> str:
    """The head text after accepting the finding's suggestion (lines line..end_line replaced)."""
    lines = head.split("\n")
    end = finding.end_line or finding.line
    return "\n".join(lines[: finding.line - 1] + finding.suggestion.split("\n") + lines[end:])
