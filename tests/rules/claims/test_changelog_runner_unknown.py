"""RR255 changelog-runner-unknown: a `cluster:` runner named in a description that runners.yaml lacks (#2126)."""
from rules.claims.checks import changelog_runner_unknown as rr255
from tests.rules.claims._desc_helpers import entry, pr, review, row

RUNNERS = {"configs/runners.yaml": b"labels:\n  cluster:mi355x-amds: [mi355x-amds_00]\n  mi355x: [mi355x-amd_0]\n"}
KEY = "dsv4-fp4-mi355x-atom"


def test_unknown_cluster_runner_is_a_nit():
    cs = pr([row(KEY)], [row(KEY, image="rocm/atom:v2")], entry([KEY], "Run on cluster:gbt350docker->mi355x-amds"),
            context=RUNNERS)
    [f] = review(cs, rr255).findings
    assert not f.blocking and f.message == (
        "The description names the runner `cluster:gbt350docker`, which `runners.yaml` does not define."
    )


def test_known_runner_passes_and_without_runners_yaml_nothing_is_judged():
    ok = pr([row(KEY)], [row(KEY, image="rocm/atom:v2")], entry([KEY], "Run on cluster:mi355x-amds"), context=RUNNERS)
    assert review(ok, rr255).findings == []
    blind = pr([row(KEY)], [row(KEY, image="rocm/atom:v2")], entry([KEY], "Run on cluster:gbt350docker"))
    assert review(blind, rr255).findings == []
