"""Engine configuration: where things live in the target repository, and per-rule overrides.

The per-repository file (`.github/recipe-review.yml`, read from the PR's base branch by the bot,
from the base revision by the CLI) lists only deviations from these defaults:

    paths:
      changelog: ["**/perf-changelog.yaml"]
    rules:
      RR007: {severity: blocking}
      changelog-separator-irregular: {enabled: false}
      RR203: {options: {host_dram_gb: {mi355x: 3000}}}
    labels: {...}            # sweep-label names (read by the bot, ignored by the rules)
    fix: {enabled: false}    # switch the `/fix` command off (read by the bot)

Unknown keys are errors that name the key; `load_config` never raises on bad input, it returns
the defaults plus the list of errors so the caller can report them once.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from wcmatch import glob

from rules.finding import Severity

_GLOB_FLAGS = glob.GLOBSTAR | glob.DOTGLOB


def path_matches(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """True when repo-relative `path` matches any glob (`**` spans directories, also none)."""
    return bool(patterns) and glob.globmatch(path, list(patterns), flags=_GLOB_FLAGS)


class RuleOptions(BaseModel):
    """Base for each rule's options: frozen, unknown options rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Paths(BaseModel):
    """Where the target repository keeps each kind of file (repo-relative globs)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # The append-only sweep changelog; root layout and the `inferencex-e2e/` layout both match.
    changelog: tuple[str, ...] = ("**/perf-changelog.yaml",)
    # Master configs whose top-level keys the changelog's `config-keys` select.
    master_configs: tuple[str, ...] = ("**/configs/*-master.yaml",)
    # Runner registry (host DRAM per runner).
    runners: tuple[str, ...] = ("**/configs/runners.yaml",)
    # Serving recipes (YAML) and benchmark scripts.
    recipes: tuple[str, ...] = ("**/benchmarks/**/*.yaml", "**/benchmarks/**/*.yml")
    scripts: tuple[str, ...] = ("**/benchmarks/**/*.sh",)
    # Archived files: moving things here is a deprecation, not a benchmark change.
    deprecated: tuple[str, ...] = ("**/deprecated/**",)


class RuleConfig(BaseModel):
    """Overrides for one rule, keyed by its code or name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True  # False switches the rule off for this repository
    severity: Severity | None = None  # overrides the rule's default severity
    options: dict[str, Any] = Field(default_factory=dict)  # validated against the rule's Options


class LabelsConfig(BaseModel):
    """Sweep-label names (used by the bot's label handling; the rules ignore them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Primary labels, exactly one for a sweep to run; the first is the recommended one.
    primary: tuple[str, ...] = (
        "full-sweep-fail-fast",
        "full-sweep-enabled",
        "non-canary-full-sweep-enabled",
        "full-sweep-fail-fast-no-canary",
        "sweep-enabled",
    )
    # Modifiers, valid only together with a primary label.
    modifiers: tuple[str, ...] = ("all-evals", "evals-only", "agentx-fast")
    # Primary labels whose runs may be reused at merge (`/reuse-sweep-run`).
    reusable: tuple[str, ...] = (
        "full-sweep-fail-fast",
        "full-sweep-enabled",
        "non-canary-full-sweep-enabled",
        "full-sweep-fail-fast-no-canary",
    )


class FixConfig(BaseModel):
    """The `/fix` command (used by the bot; `recipe-review fix` ignores it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # False: `/fix` answers that it is switched off here, and the review does not offer it.
    enabled: bool = True


class RepoConfig(BaseModel):
    """The whole per-repository file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paths: Paths = Paths()
    rules: dict[str, RuleConfig] = Field(default_factory=dict)
    labels: LabelsConfig = LabelsConfig()
    review_drafts: bool = False  # review draft PRs too
    max_inline_comments: int = Field(default=30, ge=0, le=100)  # open inline threads of the bot on a PR
    fix: FixConfig = FixConfig()  # `/fix`: push a commit with the computed fixes
    # Where a rule's documentation lives, for SARIF `helpUri` (code scanning links to it): a URL
    # template with {code} (`RR001`), {anchor} (`rr001`, the README rule table's row) and {name}.
    rule_help_uri: str | None = None

    @field_validator("rule_help_uri")
    @classmethod
    def _template_formats(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            url = v.format(code="RR001", anchor="rr001", name="changelog-entry-misplaced")
        except (KeyError, IndexError, ValueError) as err:
            raise ValueError(f"not a URL template with {{code}}, {{anchor}} or {{name}}: {err}") from None
        if not url.startswith(("https://", "http://")):
            raise ValueError("must be an http(s) URL template")
        return v


class EngineConfig:
    """A validated configuration with each rule's Options built once."""

    def __init__(self, repo: RepoConfig | None = None, options: Mapping[str, RuleOptions] | None = None):
        self.repo = repo or RepoConfig()
        self._options = dict(options or {})

    @property
    def paths(self) -> Paths:
        return self.repo.paths

    def rule_config(self, code: str, name: str) -> RuleConfig:
        return self.repo.rules.get(code) or self.repo.rules.get(name) or RuleConfig()

    def options_for(self, rule) -> RuleOptions:
        if rule.CODE in self._options:
            return self._options[rule.CODE]
        return getattr(rule, "Options", RuleOptions)()


def _format_error(err: ValidationError, prefix: str) -> list[str]:
    out = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        where = f"{prefix}.{loc}" if loc else prefix
        out.append(f"{where}: {e['msg']}")
    return out


def load_config(data: Mapping | None, rules: Sequence) -> tuple[EngineConfig, list[str]]:
    """Validate a parsed per-repository config. Returns (config, errors); errors → defaults used.

    Every rule key must name one of `rules` (by code or name) and its options must validate
    against that rule's Options model. The table is passed in rather than imported: the ground
    floor never reads the registry that sits above it (`rules.load_config` binds `ALL_RULES`).
    """
    if data is None:
        return EngineConfig(), []
    if not isinstance(data, Mapping):
        return EngineConfig(), ["config: the file must hold a mapping"]
    by_key = {}
    for rule in rules:
        by_key[rule.CODE] = rule
        by_key[rule.NAME] = rule
    errors: list[str] = []
    try:
        repo = RepoConfig.model_validate(dict(data))
    except ValidationError as err:
        errors.extend(_format_error(err, "config"))
        repo = None
    rules_in = data.get("rules")
    options: dict[str, RuleOptions] = {}
    if isinstance(rules_in, Mapping):  # report every bad rule key, even when another section is bad too
        for key, rc in rules_in.items():
            rule = by_key.get(key)
            if rule is None:
                errors.append(f"config: rules.{key}: no rule has this code or name")
                continue
            raw = rc.get("options", {}) if isinstance(rc, Mapping) else {}
            model = getattr(rule, "Options", RuleOptions)
            try:
                options[rule.CODE] = model.model_validate(raw if isinstance(raw, Mapping) else {})
            except ValidationError as err:
                errors.extend(_format_error(err, f"config: rules.{key}.options"))
    if errors or repo is None:
        return EngineConfig(), errors
    return EngineConfig(repo, options), []
