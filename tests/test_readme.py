"""The README's generated tables match the code (rule docstrings, the command table)."""
from pathlib import Path

from bot.docs import update

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tables_are_current():
    text = README.read_text(encoding="utf-8")
    assert update(text) == text, "run: recipe-review docs --write README.md"
