"""Rule tests exercise each rule itself: a rule that is off by default (`DEFAULT_ENABLED = False`,
below its precision bar) is on here. tests/test_default_off.py holds the default."""
import pytest

import rules.runner


@pytest.fixture(autouse=True)
def _default_off_rules_run(monkeypatch):
    monkeypatch.setattr(rules.runner, "enabled_by_default", lambda rule: True)
