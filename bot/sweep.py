"""Pure: sweep-label semantics and the `sweep-gate` verdict.

Labels (names from the repository config, `labels:`): exactly one *primary* label requests a
sweep; *modifiers* only count next to a primary. A sweep may start only when the PR appends a
changelog entry, append-only entries are not mixed with regular ones nor with the eval modifiers,
and the latest review of the head has no blocking finding.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.config import LabelsConfig

GATE_CHECK_NAME = "sweep-gate"
EVAL_MODIFIERS = ("evals-only", "all-evals")

# `/sweep <mode>` words → primary label (defaults; a repository's own names are matched by suffix).
SWEEP_MODES = {
    "fail-fast": "full-sweep-fail-fast",
    "enabled": "full-sweep-enabled",
    "non-canary": "non-canary-full-sweep-enabled",
    "fail-fast-no-canary": "full-sweep-fail-fast-no-canary",
    "trimmed": "sweep-enabled",
}


@dataclass(frozen=True)
class ChangelogFacts:
    """What the review learned about the changelog of this head."""

    appends: bool  # the PR appends ≥ 1 entry, history intact
    new_entries: int
    append_only: int  # how many new entries have `append-only: true`


@dataclass
class Gate:
    conclusion: str  # "success" | "failure" | "neutral"
    title: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = []
        if self.problems:
            lines += ["**What to change before a sweep can start:**", ""] + [f"- {p}" for p in self.problems]
        if self.notes:
            lines += ([""] if lines else []) + [f"- {n}" for n in self.notes]
        return "\n".join(lines) or self.title


def primaries(labels: Iterable[str], cfg: LabelsConfig) -> list[str]:
    return [lb for lb in labels if lb in cfg.primary]


def modifiers(labels: Iterable[str], cfg: LabelsConfig) -> list[str]:
    return [lb for lb in labels if lb in cfg.modifiers]


def owned(cfg: LabelsConfig) -> set[str]:
    return set(cfg.primary) | set(cfg.modifiers)


def resolve_primaries(labels: list[str], added: str | None, cfg: LabelsConfig) -> tuple[list[str], list[str]]:
    """(wanted labels, removed primaries): when a primary was just added next to others, it wins."""
    prim = primaries(labels, cfg)
    if added in cfg.primary and len(prim) > 1:
        removed = [p for p in prim if p != added]
        return [lb for lb in labels if lb not in removed], removed
    return list(labels), []


def evaluate(labels: Iterable[str], cfg: LabelsConfig, facts: ChangelogFacts | None, blocking: int | None) -> Gate:
    """The gate verdict for the head; `blocking` is None when the head has not been reviewed yet."""
    labels = list(labels)
    prim, mods = primaries(labels, cfg), modifiers(labels, cfg)
    if not prim and not mods:
        return Gate("neutral", "No sweep requested", notes=[
            f"Add exactly one primary label to request a sweep: `{cfg.primary[0]}` (recommended)"
            + "".join(f", `{p}`" for p in cfg.primary[1:3]) + "."])
    problems = []
    if len(prim) > 1:
        problems.append(f"Keep exactly one primary label; this PR has {len(prim)}: "
                        + ", ".join(f"`{p}`" for p in prim) + ".")
    if mods and not prim:
        problems.append(
            "The modifier"
            + ("s " if len(mods) > 1 else " ")
            + ", ".join(f"`{m}`" for m in mods)
            + (" only count" if len(mods) > 1 else " only counts")
            + f" next to a primary label: add one (e.g. `{cfg.primary[0]}`) or remove "
            + ("them." if len(mods) > 1 else "it.")
        )
    if facts is None or not facts.appends:
        problems.append("Append an entry at the end of `perf-changelog.yaml`: sweeps run only for a PR that "
                        "appends one.")
    elif facts.append_only:
        if facts.append_only != facts.new_entries:
            problems.append("Append-only entries cannot share a sweep with regular entries: mark every new entry "
                            "`append-only: true` or none.")
        bad = [m for m in mods if m in EVAL_MODIFIERS]
        if bad:
            problems.append("Append-only entries cannot run with " + ", ".join(f"`{m}`" for m in bad)
                            + ": remove the label.")
    if blocking is None:
        problems.append("The head has not been reviewed yet.")
    elif blocking:
        problems.append(f"Fix the {blocking} blocking finding{'s' if blocking != 1 else ''} of the review "
                        "(see the `recipe-review` check).")
    if problems:
        return Gate("failure", "Sweep blocked: " + problems[0].split(":")[0].rstrip("."), problems)
    assert facts is not None  # no facts is a problem above
    mode = prim[0]
    extra = f" with {', '.join(mods)}" if mods else ""
    return Gate("success", f"Sweep may start: {mode}{extra}", notes=[
        f"Primary label `{mode}`{extra}; the changelog appends {facts.new_entries} entr"
        f"{'ies' if facts.new_entries != 1 else 'y'}; the review of this head has no blocking finding."])
