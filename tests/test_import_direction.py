"""Which code may import which: the domains of `rules/` form a declared, acyclic graph.

Each domain of `rules/` has a model (its analysis modules) and its `checks/` (one rule per module).
A domain's model imports only the models `MODEL_DEPS` lists for it, and the core (`rules/*.py`).
Checks are leaves: a check imports its own domain's model, what that model may import, and
`serving` (the engines being served, which recipes and scripts meet through); only the registry
and the runner import checks. So the recipe and scripts domains never import each other: both
reach the engine-settings model through `serving`. The core imports no domain; `rules/` imports
neither the bot nor the fake GitHub, and the fake GitHub does not import the bot.

Every import counts, also those inside functions (a function-level import is still a dependency;
it only hides a cycle). The test fails on an import the graph does not allow, on a domain the
graph does not declare, and on any import cycle between modules of `rules/`.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What each domain's model may import (besides itself), and why.
MODEL_DEPS: dict[str, set[str]] = {
    "core": set(),  # rules/*.py: findings, changesets, config, documents, comments, caches
    "master": {"core"},  # the search space, which every other domain reads
    "scripts": {"core", "master"},  # the shell model: a launcher resolves master-config keys to points
    "serving": {"core", "master", "scripts"},  # the engines served: points from recipes and from scripts
    "recipe": {"core", "master", "serving"},
    "changelog": {"core", "master", "scripts"},  # an entry's reach: the configs and the scripts they run
    "general": {"core"},
    "claims": {"core", "master", "changelog", "scripts", "serving"},  # the description against the diff
}
# What one domain's checks may import beyond its model's dependencies and `serving`, and why.
CHECK_EXTRA: dict[str, set[str]] = {
    "general": {"changelog"},  # yaml_invalid names which of the changelog's gates rejects a duplicate key
}
TOP = {"rules", "rules.runner", "rules.registry", "rules.fix", "rules.inputs"}  # entry points: may import any module
# (rules.inputs asks every domain what a review reads)


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


def imports(path: Path, known: set[str]) -> set[str]:
    """Modules `path` imports (the most specific known module of each `from X import Y`)."""
    out = set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            for a in n.names:
                full = f"{n.module}.{a.name}"
                out.add(full if full in known else n.module)
        elif isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
    return out


def node(module: str) -> str:
    """`core`, `top`, a domain's model (`serving`) or its checks (`serving.checks`)."""
    if module in TOP:
        return "top"
    parts = module.split(".")
    if len(parts) == 2:
        return "core"
    return f"{parts[1]}.checks" if parts[2] == "checks" else parts[1]


def allowed(src: str, dst: str) -> bool:
    if src == dst or src == "top":
        return True
    if dst == "top" or dst.endswith(".checks"):
        return False  # only the entry points import the rules and the runner
    if src.endswith(".checks"):
        domain = src.split(".")[0]
        return dst in {domain, "serving"} | MODEL_DEPS[domain] | CHECK_EXTRA.get(domain, set())
    return dst in MODEL_DEPS[src]


def rule_edges() -> list[tuple[str, str]]:
    mods = modules("rules")
    known = set(mods)
    return [(m, t) for m, p in mods.items() for t in sorted(imports(p, known)) if t.split(".")[0] == "rules"]


def test_the_declared_graph_is_acyclic_and_names_every_domain():
    domains = {p.name for p in (ROOT / "rules").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert domains | {"core"} == set(MODEL_DEPS), "declare every domain of rules/ in MODEL_DEPS"
    seen: dict[str, int] = {}

    def visit(d: str, path: tuple[str, ...]) -> None:
        assert d not in path, f"MODEL_DEPS has a cycle: {' -> '.join(path + (d,))}"
        if seen.get(d):
            return
        for t in MODEL_DEPS[d]:
            visit(t, path + (d,))
        seen[d] = 1

    for d in MODEL_DEPS:
        visit(d, ())


def test_every_import_in_rules_goes_the_allowed_way():
    bad = [f"{m} imports {t} ({node(m)} -> {node(t)})" for m, t in rule_edges() if not allowed(node(m), node(t))]
    assert not bad, "imports the graph does not allow:\n" + "\n".join(bad)


def test_recipe_and_scripts_meet_only_through_serving():
    sideways = [(m, t) for m, t in rule_edges()
                if {node(m).split(".")[0], node(t).split(".")[0]} == {"recipe", "scripts"}]
    assert not sideways, sideways


def test_no_import_cycle_between_modules_of_rules():
    graph: dict[str, set[str]] = defaultdict(set)
    for m, t in rule_edges():
        if m != t and not (t in TOP and m not in TOP):
            graph[m].add(t)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles = []

    def strong(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            strong(v)
    assert not cycles, f"import cycles: {cycles}"


def test_rules_import_neither_the_bot_nor_the_fake_and_the_fake_not_the_bot():
    bad = []
    for package, forbidden in (("rules", ("bot", "fakegithub")), ("fakegithub", ("bot",))):
        mods = modules(package)
        for m, p in mods.items():
            bad += [f"{m} imports {t}" for t in imports(p, set(mods)) if t.split(".")[0] in forbidden]
    assert not bad, bad


def test_the_checker_catches_what_it_should():
    """The rule itself, on made-up edges: it must be able to fail."""
    assert not allowed("recipe", "scripts") and not allowed("scripts", "serving")
    assert not allowed("scripts.checks", "recipe") and allowed("scripts.checks", "serving")
    assert not allowed("core", "master") and not allowed("master.checks", "recipe.checks")
    assert allowed("top", "recipe.checks") and allowed("general.checks", "changelog")
    assert node("rules.serving.checks.ep_mismatch") == "serving.checks" and node("rules.added") == "core"
