"""A PR that bumps master-config keys and describes it in a new changelog entry (claims tests)."""
from rules import run
from rules.changeset import ChangeSet, FileChange
from tests.rules.mc_helpers import CL_BASE, NV, master, row

CHANGELOG = "perf-changelog.yaml"


def entry(keys, *items, pr=4867):
    body = "".join(f"    - {k}\n" for k in keys)
    desc = "".join(f"    - \"{i}\"\n" for i in items)
    return f"- config-keys:\n{body}  description:\n{desc}  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{pr}\n"


def pr(base_rows, head_rows, *entries, context=None, scripts=()):
    files = [
        FileChange(NV, "modified", base=master(*base_rows), head=master(*head_rows)),
        FileChange(CHANGELOG, "modified", base=CL_BASE, head=CL_BASE + "".join("\n" + e for e in entries).encode()),
        *scripts,
    ]
    return ChangeSet(files=tuple(files), context=context or {}, pr_number=4867, repo="SemiAnalysisAI/InferenceX")


def review(cs, *rules):
    return run(cs, rules=list(rules))


__all__ = ["entry", "pr", "review", "row"]
