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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from wcmatch import glob

from rules.document import parse_yaml
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
    scripts: tuple[str, ...] = ("**/benchmarks/**/*.sh", "**/benchmarks/**/*.slurm")
    # Runner launchers (`runners/launch_<runner>.sh`) and the helpers beside them.
    launchers: tuple[str, ...] = ("**/runners/*.sh",)
    # Shared harness scripts among the benchmark scripts (multi-node job, server and client
    # helpers), read like the library (`scripts.library`): an edit reaches a benchmark only where
    # it edits the engine's or the benchmark client's command (rules/changelog/reach.py).
    harness: tuple[str, ...] = ("**/benchmarks/multi_node/*_utils/**", "**/benchmarks/**/llm-d/**")
    # Archived files: moving things here is a deprecation, not a benchmark change.
    deprecated: tuple[str, ...] = ("**/deprecated/**",)
    # Written policy read at the base revision (rules/policy.py): file paths relative to the
    # repository root and to each layout root the PR touches (`inferencex-e2e/`).
    policy: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md", "CONTRIBUTING.md", "docs/PR_REVIEW_CHECKLIST.md")
    # The tooling the repository's gates run (the changelog validator and processor, the schema,
    # the sweep generator). A PR that changes it is checked by its own version, which the
    # emulation does not model: findings of `PROOF = "gate"` rules are then skipped, not claimed.
    gate_tooling: tuple[str, ...] = (
        "**/utils/validate_perf_changelog.py", "**/utils/process_changelog.py", "**/utils/matrix_logic/*.py",
        "**/infx/matrix/**/*.py", "**/infx/workflows/validate_perf_changelog.py")


class RuleConfig(BaseModel):
    """Overrides for one rule, keyed by its code or name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True  # False switches the rule off for this repository
    severity: Severity | None = None  # overrides the rule's default severity
    options: dict[str, Any] = Field(default_factory=dict)  # validated against the rule's Options


_ON = RuleConfig()
_OFF = RuleConfig(enabled=False)


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


# The environment the benchmark workflow gives a launcher for one point (`benchmark-tmpl.yml`'s
# `env:`), as templates over the master-config key's fields merged with the point's (`-` written `_`).
# `{name|default}` uses `default` when the field is absent; a template whose field is absent and has
# no default leaves the variable unset. Computed fields: `seq` (`1k1k`, `8k1k`, else `<isl>_<osl>`),
# `scenario` / `scenario_subdir` (`fixed_seq_len/` or `agentic/`, when that directory exists under
# `benchmarks/single_node/`: older trees keep scripts flat) / `is_agentic`, `conc`, `gpu_count` (tp·pp·pcp),
# `max_model_len` (isl + osl + 256; the matrix generator's 2048 for agentic points), `node` (the runner
# machine), `multinode_flag` (`true` for multinode keys).
DEFAULT_POINT_ENV: dict[str, str] = {
    "EXP_NAME": "{model_prefix}_{seq}", "MODEL": "{model}", "MODEL_PREFIX": "{model_prefix}", "IMAGE": "{image}",
    "FRAMEWORK": "{framework}", "PRECISION": "{precision}", "ISL": "{isl}", "OSL": "{osl}",
    "MAX_MODEL_LEN": "{max_model_len|2048}", "TP": "{tp}", "PP_SIZE": "{pp|1}", "DCP_SIZE": "{dcp_size|1}",
    "PCP_SIZE": "{pcp_size|1}", "EP_SIZE": "{ep|1}", "DP_ATTENTION": "{dp_attn|false}", "CONC": "{conc}",
    "SPEC_DECODING": "{spec_decoding|none}", "DISAGG": "{disagg|false}", "RUN_EVAL": "false", "EVAL_ONLY": "false",
    "SCENARIO_TYPE": "{scenario}", "SCENARIO_SUBDIR": "{scenario_subdir}", "IS_AGENTIC": "{is_agentic}",
    "KV_OFFLOADING": "{kv_offloading|none}", "KV_OFFLOAD_BACKEND": "{kv_offload_backend|}",
    "TOTAL_CPU_DRAM_GB": "{total_cpu_dram_gb|0}", "DURATION": "{duration|3600}", "RANDOM_RANGE_RATIO": "0.8",
    "RESULT_FILENAME": "{model_prefix}_{seq}_{precision}_{framework}_tp{tp}_conc{conc}_{node}",
    "RESULT_DIR": "/workspace/results", "GPU_COUNT": "{gpu_count}", "RUNNER_TYPE": "{runner}", "RUNNER_NAME": "{node}",
    "IS_MULTINODE": "{multinode_flag}",
}
# Variables the runner machine provides at run time: their values are unknown to a review.
DEFAULT_RUNTIME_ENV: tuple[str, ...] = (
    "GITHUB_WORKSPACE", "HOME", "USER", "PATH", "HOSTNAME", "TMPDIR", "HF_TOKEN", "HF_HUB_CACHE", "SLURM_JOB_ID",
    "SLURMD_NODENAME", "SLURM_NODELIST", "CUDA_VISIBLE_DEVICES", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "RUNNER_TEMP",
    "GITHUB_RUN_ID", "GITHUB_SHA", "PWD")


# Launcher inputs that decide which script runs; the launcher pass leaves every other point value
# unknown (so points differing only in, say, concurrency share one launcher interpretation) and
# fills those values back into the environment the script receives. A path that comes out unknown
# is interpreted again with every value.
DEFAULT_LAUNCHER_INPUTS: tuple[str, ...] = (
    "EXP_NAME", "MODEL_PREFIX", "PRECISION", "FRAMEWORK", "SPEC_DECODING", "SCENARIO_SUBDIR", "SCENARIO_TYPE",
    "IS_AGENTIC", "IS_MULTINODE", "DISAGG", "KV_OFFLOADING", "KV_OFFLOAD_BACKEND", "RUNNER_NAME", "RUNNER_TYPE")


class ScriptsConfig(BaseModel):
    """How a master-config point reaches its launcher, benchmark script and engine command.

    The script naming itself (model code, precision, SKU, framework and spec-decoding suffixes,
    fallbacks) is not configured: it is read from the launchers, which the resolver interprets.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # The launcher a runner machine runs, relative to the repository layout's root; `{node}` is the
    # machine name up to its first `_` (the workflow runs `./runners/launch_${RUNNER_NAME%%_*}.sh`).
    launcher: str = "runners/launch_{node}.sh"
    # The shared benchmark library every benchmark script sources (read for every resolution).
    library: str = "benchmarks/benchmark_lib.sh"
    # Environment the workflow passes to the launcher per point (see DEFAULT_POINT_ENV).
    point_env: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_POINT_ENV))
    # Point values the launcher pass keeps (see DEFAULT_LAUNCHER_INPUTS).
    launcher_inputs: tuple[str, ...] = DEFAULT_LAUNCHER_INPUTS
    # Variables whose run-time values a review cannot know.
    runtime_env: tuple[str, ...] = DEFAULT_RUNTIME_ENV
    # When a shared file changes (a launcher, the library), resolve at most this many keys through it.
    max_keys: int = Field(default=40, ge=0, le=10_000)
    # Launcher paths (key × runner machine × spec-decoding × scenario) resolved per review; each
    # brings its points (entries × concurrencies). Keys beyond it are listed in a Skipped check.
    max_paths: int = Field(default=400, ge=1, le=100_000)
    # Concurrencies resolved per search-space entry: "ends" (lowest and highest: both sides of a
    # `CONC` threshold in practice, at a fraction of the cost) or "all".
    concurrencies: Literal["ends", "all"] = "ends"
    # Scripts are interpreted for at most this many points each, per launcher (every point's
    # launcher still is).
    points_per_script: int = Field(default=2, ge=1, le=10_000)
    # And beyond that, for the entries the PR adds or edits: one point per distinct parallelism
    # (tp, ep, dp-attn, pp, spec-decoding) at its highest concurrency, at most this many per
    # script and launcher, so the engine checks see each new label.
    new_entry_points: int = Field(default=8, ge=0, le=10_000)


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
    scripts: ScriptsConfig = ScriptsConfig()
    review_drafts: bool = False  # review draft PRs too
    max_inline_comments: int = Field(default=30, ge=0, le=100)  # open inline threads of the bot on a PR
    fix: FixConfig = FixConfig()  # `/fix`: push a commit with the computed fixes
    # Where a rule's documentation lives, for SARIF `helpUri` (code scanning links to it) and the
    # link of `/explain`: a URL template with {code} (`RR001`), {anchor} (`rr001`, the README rule
    # table's row) and {name}. Unset: the rule's page, docs/rules/<CODE>.md, in recipe-review's own
    # repository (`bot.docs.default_rule_help_uri`).
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

    def rule_config(self, code: str, name: str, default_enabled: bool = True) -> RuleConfig:
        """The repository's overrides for the rule; without any, its defaults: enabled unless the
        caller says the rule module has `DEFAULT_ENABLED = False` (a rule judged below its
        precision bar, kept for repositories that switch it on with `enabled: true`)."""
        got = self.repo.rules.get(code) or self.repo.rules.get(name)
        if got is not None:
            return got
        return _ON if default_enabled else _OFF

    def options_for(self, rule: Any) -> RuleOptions:
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


def load_config(data: Mapping[str, Any] | None, rules: Sequence[Any]) -> tuple[EngineConfig, list[str]]:
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


CONFIG_PATH = ".github/recipe-review.yml"  # the per-repository config, read at the base revision


def load_repo_config(
    raw: bytes | None, rules: Sequence[Any], path: str = CONFIG_PATH
) -> tuple[EngineConfig, list[str]]:
    """The repository config file's bytes (None: there is none) validated against `rules`: (config,
    errors). A file that does not parse gives the defaults and one error naming the file and line."""
    if raw is None:
        return load_config(None, rules)
    doc = parse_yaml(path, raw)
    if doc.error is not None:
        config, _ = load_config(None, rules)
        return config, [f"{path} does not parse (line {doc.error.line or '?'}): {doc.error.message}"]
    return load_config(doc.data, rules)

