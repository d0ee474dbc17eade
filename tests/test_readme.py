"""The README's generated tables and the rule pages match the code (rule docstrings, the command table)."""
from pathlib import Path

from bot.docs import RULE_PAGES, rule_pages, update
from rules.registry import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_readme_tables_are_current():
    text = README.read_text(encoding="utf-8")
    assert update(text) == text, "run: recipe-review docs --write README.md"


def test_every_rule_has_a_current_page_and_no_page_is_left_over():
    want = rule_pages()
    have = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / RULE_PAGES).glob("*.md")}
    missing = sorted(set(want) - set(have))
    orphans = sorted(set(have) - set(want))
    stale = sorted(n for n in set(want) & set(have) if want[n] != have[n])
    assert not missing, f"no page for {missing}: run: recipe-review docs --write README.md"
    assert not orphans, f"pages of no rule: {orphans}: run: recipe-review docs --write README.md"
    assert not stale, f"stale pages: {stale}: run: recipe-review docs --write README.md"


def test_the_readme_table_is_one_line_per_rule_linking_its_page():
    text = README.read_text(encoding="utf-8")
    block = text[text.index("<!-- rules:start -->"):text.index("<!-- rules:end -->")]
    rows = [line for line in block.splitlines() if line.startswith("| <a id=")]
    assert len(rows) == len(ALL_RULES)
    for row, rule in zip(rows, ALL_RULES, strict=True):
        assert f"`{rule.CODE}` | {rule.NAME} |" in row
        assert row.endswith(f"]({RULE_PAGES.as_posix()}/{rule.CODE}.md) |"), row


def test_a_page_says_what_the_rule_is_and_when_it_fires():
    from bot.docs import rule_page
    from rules.registry import by_code

    page = rule_page(by_code("RR001"))
    assert page.startswith("# RR001 changelog-entry-misplaced\n")
    for line in ("- **Code**: `RR001`", "- **Severity**: 🔴 blocking", "- **Proof**: `written:A2`",
                 "- **Enforces the written rules**: A2", "## When it fires", "## Fix"):
        assert line in page, line
    nit = rule_page(by_code("RR301"))
    assert "🟡 nit" in nit and "**Proof**" not in nit
