"""Pure: which rules a run uses, from `--select` / `--ignore` (ruff's rule selection).

A selector is a rule code (`RR001`), a rule name (`changelog-entry-misplaced`) or a code prefix
(`RR4` = every RR4xx rule, `RR` = every rule); several are comma-separated. `--select` chooses from
every registered rule, so it can run a rule the repository config disables; without it the
config decides which rules run. `--ignore` then removes rules from either. Severity and options
always come from the config. An unknown selector is a `ValueError` naming it.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_PREFIX = re.compile(r"^RR\d{0,3}$")


def parse_selectors(text: str, rules: Sequence, flag: str = "--select") -> frozenset[str]:
    """`RR001,changelog-pr-link-wrong,RR4` → the codes they name. Raises ValueError."""
    by_name = {r.NAME: r.CODE for r in rules}
    codes = [r.CODE for r in rules]
    out: set[str] = set()
    items = [p.strip() for p in text.split(",") if p.strip()]
    if not items:
        raise ValueError(f"{flag} needs at least one rule code, name or code prefix")
    for item in items:
        if item in by_name:
            out.add(by_name[item])
            continue
        key = item.upper()
        matched = [c for c in codes if c == key or (_PREFIX.match(key) and c.startswith(key))]
        if not matched:
            raise ValueError(f"{flag}: no rule has the code, name or code prefix `{item}` "
                             "(`recipe-review rule --all` lists them)")
        out.update(matched)
    return frozenset(out)


@dataclass(frozen=True)
class Selection:
    """The rules to run, and which of them run even where the config disables them."""

    rules: tuple  # in registry order
    force: frozenset[str]  # codes chosen by --select: the config's `enabled: false` does not apply
    codes: frozenset[str] | None  # every code the user narrowed the run to; None: no --select/--ignore

    def wants(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def select_rules(rules: Sequence, select: str | None = None, ignore: str | None = None) -> Selection:
    """The Selection for `--select SELECT --ignore IGNORE` over `rules` (see the module docstring)."""
    chosen = parse_selectors(select, rules, "--select") if select is not None else None
    dropped = parse_selectors(ignore, rules, "--ignore") if ignore is not None else frozenset()
    if chosen is None:
        kept = tuple(r for r in rules if r.CODE not in dropped)
        codes = None if ignore is None else frozenset(r.CODE for r in kept)
        return Selection(kept, frozenset(), codes)
    kept = tuple(r for r in rules if r.CODE in chosen and r.CODE not in dropped)
    if not kept:
        raise ValueError("--select and --ignore leave no rule to run")
    codes = frozenset(r.CODE for r in kept)
    return Selection(kept, codes, codes)
