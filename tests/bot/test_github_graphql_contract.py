"""Every GraphQL document the bot can send, validated against GitHub's published schema
(../shared/github/api/graphql-schema.graphql.xz, loaded by graphql-core with `assume_valid_sdl`):
no validation error, no deprecated field, variables that coerce to GitHub's types.

The fake enforces the same on every request of the suite (fakegithub/contract.py); this test covers
the shapes the suite may not reach (hundreds of blob aliases, no head, every paging combination)
and fails when a new document is sent without being listed here."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot import github
from fakegithub import contract
from tests.conftest import GITHUB_API_DESCRIPTIONS

SHA = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@pytest.fixture(scope="module")
def schema():
    if not (GITHUB_API_DESCRIPTIONS / contract.GRAPHQL_FILE).exists():
        pytest.skip("GitHub's GraphQL schema is not present (../shared/github/api)")
    return contract.load(GITHUB_API_DESCRIPTIONS)


def documents():
    """(label, query, variables) for every document shape bot/github.py builds."""
    for n_blobs in (0, 1, 2, github_blobs_per_query()):
        for n_trees in (0, 1, 4):
            for head in (None, SHA):
                blobs = [f"{SHA}:dir/file{i}.yaml" for i in range(n_blobs)]
                trees = [f"{SHA}:configs{i}" for i in range(n_trees)]
                for n_probes in (0, 3):
                    probes = [f"{SHA}:perf-changelog{i}.yaml" for i in range(n_probes)]
                    q, v = github.snapshot_document("octo", "bench", 7, blobs, trees, head, probes)
                    yield f"snapshot-{n_blobs}b-{n_trees}t-{n_probes}p-{'head' if head else 'nohead'}", q, v
    for n_listings in (1, 2):  # script reviews: launchers (tree with modes) and nested listings of benchmarks/
        listings = [f"{SHA}:benchmarks", f"{SHA}:runners"][:n_listings]
        q, v = github.snapshot_document("octo", "bench", 7, [f"{SHA}:a.yaml"], [f"{SHA}:runners"], SHA, [], listings)
        yield f"snapshot-{n_listings}l", q, v
    for after, tafter in ((None, None), ("Y3Vyc29yOnYyOjk5", None), (None, "Y3Vyc29yOnYyOjk5"),
                          ("Y3Vyc29yOnYyOjk5", "Y3Vyc29yOnYyOjk5")):
        yield f"page-{bool(after)}-{bool(tafter)}", github.page_document(), {
            "owner": "octo", "name": "bench", "number": 7, "after": after, "tafter": tafter}
    yield "resolve-thread", github.RESOLVE_THREAD, {"id": "PRRT_kwDOABCDEF"}
    yield "viewer", github.VIEWER, {}


def github_blobs_per_query() -> int:
    from bot.gather import BLOBS_PER_QUERY

    return BLOBS_PER_QUERY


DOCS = list(documents())


@pytest.mark.parametrize("label,query,variables", DOCS, ids=[d[0] for d in DOCS])
def test_every_document_is_valid_under_githubs_schema(schema, label, query, variables):
    assert schema.graphql_errors(query, variables) == []


def test_the_check_fails_on_deprecated_fields(schema):
    """The deprecated review-comment id the snapshot used to read is refused."""
    q, v = github.snapshot_document("octo", "bench", 7, [], [], None)
    old = q.replace("comments(first: 50) { nodes { fullDatabaseId", "comments(first: 50) { nodes { databaseId")
    assert old != q
    [err] = schema.graphql_errors(old, v)
    assert "PullRequestReviewComment.databaseId is deprecated" in err


def test_the_check_fails_on_wrong_variable_types(schema):
    q, v = github.snapshot_document("octo", "bench", 7, [], [], SHA)
    assert schema.graphql_errors(q, {**v, "number": "7", "head": 12})


def test_no_graphql_document_is_sent_without_being_listed_here():
    """Every `graphql_query(...)` call in bot/ sends one of the documents above."""
    allowed = {"snapshot_document", "page_document", "RESOLVE_THREAD", "VIEWER", "query"}
    calls = []
    for path in sorted(Path(github.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "graphql_query":
                arg = node.args[0]
                name = arg.func.id if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) else \
                    getattr(arg, "id", None)
                calls.append((path.name, name))
    assert calls and all(name in allowed for _, name in calls), calls
    assert len(calls) == 4, calls  # the snapshot, its paging, resolving a thread, the viewer
    assert "query, variables = snapshot_document(" in Path(github.__file__).read_text()
