"""Generated README sections: the rule table (from rule docstrings) and the command table.

`recipe-review docs --write README.md` rewrites the blocks between the markers; a test fails when
the README is out of date.
"""
from __future__ import annotations

import argparse
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


def register(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("docs", help="print (or --write into the README) the generated rule and command tables")
    d.add_argument("--write", metavar="README", help="rewrite the generated blocks of this file")
    d.set_defaults(func=cmd_docs)
