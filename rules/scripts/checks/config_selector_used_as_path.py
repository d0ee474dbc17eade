"""Flags a launcher that hands a `CONFIG_FILE` carrying a `:selector[N]` suffix to a file tool as a path.

## Why it matters
srt-slurm recipe references in the master configs may pick one variant of a recipe:
`CONFIG_FILE=recipes/gb300-fp4/glm5.yaml:zip_override_8k1k[0]`. `srtctl` understands the
suffix; `sed -i`, `cp`, `cat`, `grep` and the other file tools do not, and look for a file whose
name ends in `:zip_override_8k1k[0]`. The edit silently does not happen, or under `set -e` the
launcher aborts before the job starts, on every point that uses a selector (#2002: new
selector values met a `sed -i … "$CONFIG_FILE"` in `launch_gb300-nv.sh`). The repository's
launchers strip the suffix for file tools (`"${CONFIG_FILE%%:*}"`, `launch_b200-dgxc.sh`).

A nit: launchers without `set -e` carry on past the failed edit to `srtctl`, which reads the
selector and runs the right point, so the benchmark is usually not wrong; the edit the launcher
meant (a name, a path) is what is lost.

## When it fires
A launch counts when its program is a file tool (`sed -i`, `cp`, `mv`, `cat`, `head`, `tail`,
`grep`, `awk`, `yq`, `jq`, `tee`, `wc`, `sort`, `diff`, `rm`, `chmod`) and one of its arguments,
as the interpreter expands it for a point, is a point value that carries a selector (unstripped).
The launcher is interpreted once per key, machine, spec-decoding and scenario, with the first
of those points. Reported on the launch's line when the PR edits it, else on the
first master-config line the PR writes that gives the variable a selector value for a point that
runs through that launcher (the change that breaks it), once per launch.

## Example
    # master: CONFIG_FILE=recipes/gb300-fp4/glm5.yaml:zip_override_8k1k[0]
    sed -i "s/^name:.*/name: \\"${RUNNER_NAME}\\"/" "$CONFIG_FILE"

## Fix
Strip the selector for file tools: `"${CONFIG_FILE%%:*}"` (keep the full value for `srtctl`).
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from rules.added import added_in
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.master.analysis import master_keys
from rules.scripts.facts import touched
from rules.scripts.resolve import resolutions

CODE = "RR420"
NAME = "config-selector-used-as-path"
SEVERITY = Severity.NIT
SELECTOR = re.compile(r":[A-Za-z_][\w.-]*\[\d+\]$")
FILE_TOOLS = frozenset({"sed", "cp", "mv", "cat", "head", "tail", "grep", "egrep", "awk", "yq", "jq", "tee", "wc",
                        "sort", "diff", "rm", "chmod"})


def _written_lines(ctx: ReviewContext, ki, value: str) -> list[int]:
    """Lines the PR adds to the key's block that spell `value` (its `additional-settings` item)."""
    added = added_in(ctx, ki.path)
    return [ki.line + i for i, text in enumerate(ki.text.split("\n")) if value in text and ki.line + i in added]


class _Carried:
    """One variable of one launcher's points whose values carry selectors."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # value -> a key that sets it
        self.written: list[tuple[str, int, str, str]] = []  # (master path, line, key, value) the PR adds


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:  # noqa: C901 (per point env scan, then one pass per launcher interpretation)
    carried: dict[str, dict[str, _Carried]] = {}  # launcher -> variable -> values
    results: dict[str, list] = {}
    done: set[tuple[str, str, str]] = set()
    for r in resolutions(ctx):
        if not r.launcher:
            continue
        ki = master_keys(ctx, "head").get(r.point.key)
        for name, value in r.point.env.items():
            if not (isinstance(value, str) and SELECTOR.search(value)):
                continue
            c = carried.setdefault(r.launcher, {}).setdefault(name, _Carried())
            c.values.setdefault(value, r.point.key)
            if ki is not None and (r.launcher, r.point.key, value) not in done:
                done.add((r.launcher, r.point.key, value))
                c.written.extend((ki.path, n, r.point.key, value) for n in _written_lines(ctx, ki, value))
        # The launcher is interpreted once per key, machine, spec-decoding and scenario (its
        # first point): the words of that interpretation are compared with every point's values.
        if r.launcher_result is not None:
            results.setdefault(r.launcher, [])
            if not any(x is r.launcher_result for x in results[r.launcher]):
                results[r.launcher].append(r.launcher_result)
    seen: set[tuple[str, int, str]] = set()
    checked = 0
    for launcher, vars_ in carried.items():
        lines = touched(ctx, launcher) or set()
        for result in results.get(launcher, ()):
            for launch in result.launches:
                if not launch.argv or launch.argv[0].text is None:
                    continue
                tool = posixpath.basename(launch.argv[0].text)
                if tool not in FILE_TOOLS:
                    continue
                args = launch.argv[1:]
                if tool == "sed" and not any((a.text or "").startswith("-i") or a.text == "--in-place" for a in args):
                    continue  # sed reading a stream: the value may be data, not a path
                for a in args:
                    name = next((n for n, c in vars_.items() if a.text in c.values), None)
                    if name is None or (launch.path, launch.line, name) in seen:
                        continue
                    checked += 1
                    c = vars_[name]
                    key = c.values[a.text]
                    shown = " ".join(str(w) for w in launch.argv)[:120]
                    if launch.line in lines:
                        where, line, what = launch.path, launch.line, (
                            f"`{tool}` gets `${name}` as a path, but for `{key}` it is `{a.text}`: no file has that "
                            "name (the `:selector[N]` suffix is srtctl's)")
                    elif c.written:
                        where, line, wkey, wvalue = sorted(c.written)[0]
                        more = len(c.written) - 1
                        what = (
                            f"`{wkey}` now sets `{name}={wvalue}`, but `{launch.path}:{launch.line}` passes "
                            f"`${name}` to `{tool}` as a path: no file has that name (the `:selector[N]` suffix "
                            f"is srtctl's)"
                            + (f"; {more} more value(s) this PR writes run the same way" if more else "")
                        )
                    else:
                        continue  # neither the launch nor a selector value is this PR's change
                    seen.add((launch.path, launch.line, name))
                    yield Problem(where, line, what,
                                  fix=f"Strip the selector for `{tool}` in `{launch.path}`: `\"${{{name}%%:*}}\"`.",
                                  evidence=(f"`{key}` sets {name}={a.text}", f"{launch.path}:{launch.line}: `{shown}`"))
    if carried and not checked:
        names = sorted({n for v in carried.values() for n in v})
        yield Passed(f"{', '.join(f'`{n}`' for n in names)} carry `:selector[N]` suffixes in "
                     f"{len(carried)} launcher(s); no file tool gets one unstripped")
