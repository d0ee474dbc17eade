"""Rule documentation from the shell, and the generated README sections.

`recipe-review rule CODE|NAME` prints one rule's documentation (its docstring) and `rule --all`
lists every rule with its code, name, severity and one line; `--format json` gives both as JSON
(ruff's `rule` and `rule --all`). Both show the rule's own defaults: a repository's
`.github/recipe-review.yml` may change a severity or switch a rule off, as `check` reports.

`recipe-review docs --write README.md` rewrites the README blocks between the markers (the rule
table from the docstrings, the command table); a test fails when the README is out of date.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from bot import commands
from rules.engine import doc_sections
from rules.registry import ALL_RULES

BLOCKS = {
    "rules": ("<!-- rules:start -->", "<!-- rules:end -->"),
    "commands": ("<!-- commands:start -->", "<!-- commands:end -->"),
}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rules_table() -> str:
    rows = ["| Code | Name | Severity | Flags … | Why it matters |", "|---|---|---|---|---|"]
    for r in ALL_RULES:
        s = doc_sections(r)
        summary = s["summary"].split("\n\n")[0]
        summary = summary[len("Flags "):] if summary.startswith("Flags ") else summary
        why = s.get("Why it matters", "").split("\n\n")[0]
        # The anchor is what SARIF `helpUri` templates point at: README.md#rr001 (config `rule_help_uri`).
        rows.append(f"| <a id=\"{r.CODE.lower()}\"></a>`{r.CODE}` | {r.NAME} | {'🔴 blocking' if r.SEVERITY.value == 'blocking' else '🟡 nit'} | "
                    f"{_cell(summary)} | {_cell(why)} |")
    return "\n".join(rows)


def render_block(name: str) -> str:
    return rules_table() if name == "rules" else commands.help_text()


def update(text: str) -> str:
    for name, (start, end) in BLOCKS.items():
        pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise ValueError(f"README lacks the {start} … {end} block")
        text = pattern.sub(lambda _m, n=name, s=start, e=end: f"{s}\n{render_block(n)}\n{e}", text)
    return text


def cmd_docs(args) -> int:
    path = Path(args.write or "README.md")
    new = update(path.read_text(encoding="utf-8"))
    if args.write:
        path.write_text(new, encoding="utf-8")
    else:
        sys.stdout.write(rules_table() + "\n\n" + commands.help_text() + "\n")
    return 0


def _summary(rule) -> str:
    return " ".join(doc_sections(rule)["summary"].split("\n\n")[0].split())


def rule_json(rule) -> dict:
    """One rule as `rule --format json` prints it (a contract: tools read these keys)."""
    from rules.fix import CHANGELOG_CODES, SAFE_SUGGESTIONS

    return {"code": rule.CODE, "name": rule.NAME, "severity": rule.SEVERITY.value, "summary": _summary(rule),
            "fixable": rule.CODE in CHANGELOG_CODES or rule.CODE in SAFE_SUGGESTIONS,
            "documentation": (rule.__doc__ or "").strip() + "\n"}


def rule_text(rule) -> str:
    """One rule's documentation as Markdown: a heading, severity and fix, then the docstring."""
    d = rule_json(rule)
    fix = ("automatic: `recipe-review fix` and `/fix` repair it" if d["fixable"]
           else "not automatic (the finding says what to change)")
    return (f"# {rule.CODE} {rule.NAME}\n\nSeverity: {d['severity']} (the default; a repository's config may "
            f"change it)\nFix: {fix}\n\n{d['documentation']}")


def cmd_rule(args) -> int:
    from bot.cli import UsageError
    from rules.registry import by_code

    if args.all == bool(args.rule):
        raise UsageError("give one rule code or name (`recipe-review rule RR001`), or --all")
    if args.all:
        if args.format == "json":
            sys.stdout.write(json.dumps([rule_json(r) for r in ALL_RULES], ensure_ascii=False, indent=2) + "\n")
        else:
            width = max(len(r.NAME) for r in ALL_RULES)
            for r in ALL_RULES:
                sys.stdout.write(f"{r.CODE}  {r.NAME:<{width}}  {r.SEVERITY.value:<8}  {_summary(r)}\n")
        return 0
    rule = by_code(args.rule)
    if rule is None:
        raise UsageError(f"no rule has the code or name `{args.rule}` (`recipe-review rule --all` lists them)")
    if args.format == "json":
        sys.stdout.write(json.dumps(rule_json(rule), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(rule_text(rule))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("rule", help="show a rule's documentation (`rule RR001`), or list every rule (`rule --all`)",
                       description="Print the documentation of one rule, by code or name, or with --all one line per "
                                   "rule: code, name, default severity and what it flags.")
    r.add_argument("rule", nargs="?", metavar="CODE|NAME", help="e.g. RR001 or changelog-entry-misplaced")
    r.add_argument("--all", action="store_true", help="list every rule")
    r.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (Markdown for one rule, a table for --all) or json")
    r.set_defaults(func=cmd_rule)
    d = sub.add_parser("docs", help="print (or --write into the README) the generated rule and command tables")
    d.add_argument("--write", metavar="README", help="rewrite the generated blocks of this file")
    d.set_defaults(func=cmd_docs)
