"""The claim parser: what counts as a claim, what it evaluates to, and the prose it must ignore."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.claims.parse import (
    find_claims,
    key_unit,
    mentions,
    quantities,
    value_pairs,
    value_quantity,
)

TRUE = [
    ("2700 blocks x 41,574,656 B = 112,251,571,200 B per rank, 898 GB across the 8 ranks", 2),
    ("8 GPUs * 96 GB = 768 GB", 1),
    ("ntasks × DefMemPerCPU = 8 × 4 GB = 32 GB", 1),
    ("4*35=140 CPUs per task", 1),
    ("13.6*8/58 = 1.88", 1),
    ("dispatch_tokens=64/8*4=32 → broken", 1),
    ("count = tp*pp/gpus_per_node = 8*2/8 = 2.", 1),
    ("64*9472 ~= 256*2304", 1),
    ("2700 × 41,574,656 B = 112.25 GB", 1),
    ("154,250,000,000 × 8 = 1,234 GB", 1),
    ("8 × 4 = 32 GB", 1),
    ("75% of 900 GB = 675 GB", 1),
    ("1024^3 = 1,073,741,824", 1),
    ("8x4 = 32", 1),
    ("0.086 × 2990 GB = 257 GB", 1),
    ("~1.5 TB (~188 GB/GPU across 8 B300s)", 1),
    ("4096/24 = 171", 1),
    ("7 / 3 = 3 nodes", 1),
    ("56.8k / 38k = 1.49", 1),
    ("128k = 128 x 1024", 1),
    ("1,000 + 24 = 1,024", 1),
    ("1.5 TB - 0.5 TB = 1 TB", 1),
    ("2 x 450 GB ≤ 900 GB", 1),
    ("42 GiB = 45.1 GB x 1", 1),
]

FALSE = [
    ("8 × 4 GB = 30 GB", "32 GB"),
    ("2 + 2 = 5", "4"),
    ("2700 blocks x 41,574,656 B = 112,251,571,200 B per rank, 900 GB across the 8 ranks", "898 GB"),
    ("2700 × 41,574,656 B = 112,251,571,201 B", "112,251,571,200 B"),
    ("154,250,000,000 × 8 = 1,300 GB", None),
    ("1.5 TB (250 GB/GPU across 8 GPUs)", "2.0 TB"),
    ("2 nodes x 8 GPUs = 18 GPUs", "16"),
    ("2 x 500 GB ≤ 900 GB", None),
    ("64*9472 ~= 512*2304", None),
    ("TOTAL_CPU_DRAM_GB 898 x 1024^3 = 898,000,000,000", "964,220,157,952"),
]

NOT_CLAIMS = [
    "TP=4/8 conc 4–256",
    "conc=2048/4096: mega_moe deepep backend",
    "image v0.20.1 = 1",
    "see PR #1574 = 3 x 2",
    "conc 4-48 = 2 x 22",
    "TP8 x DCP8 = 64",
    "8k/1k TP = 8",
    "2:1 = 4:2",
    "c384/DP4 = 96",
    "~444 GB MXFP8 at TP2 = 222 GB/GPU",
    "2 prefill nodes + 2 decode nodes = 32 H100s total",
    "8 GPU / 2 nodes each = 8 nodes",
    "1 prefill DEP=4 + 6 decode TP=4",
    "4 GB200 nodes / 16 GPUs. PREFILL_NODES = 2 DECODE_NODES",
    "released 2026-07-17 = 2026 - 7",
    "Recipe runs concurrencies=8x32x64; matrix tracks the max.",
    "lmsysorg/sglang:v0.5.12-cu130 = 5 x 1",
    "220 GiB of host DRAM per rank across the 8 TP ranks",
    "112.25 GB/rank; 898 GB across 8 ranks",
    "~10x headroom = 2.1× buffer",
    "x = 3 * y",
    "(2 + 2) x 3 = 12",
    "12 = 3 x (2 + 2)",
    "8 x 4 GB = 32 GB x GB",
    "prefill:decode = 1:3",
    "0x1F x 2 = 62",
]


@pytest.mark.parametrize("text,count", TRUE, ids=[t for t, _ in TRUE])
def test_true_claims(text, count):
    claims = find_claims(text)
    assert len(claims) == count, [c.detail for c in claims]
    assert all(c.holds for c in claims), [c.detail for c in claims]


@pytest.mark.parametrize("text,fixed", FALSE, ids=[t for t, _ in FALSE])
def test_false_claims(text, fixed):
    bad = [c for c in find_claims(text) if not c.holds]
    assert len(bad) == 1, [c.detail for c in find_claims(text)]
    assert bad[0].fixed == fixed


@pytest.mark.parametrize("text", NOT_CLAIMS, ids=NOT_CLAIMS)
def test_prose_that_is_not_a_checkable_claim(text):
    assert find_claims(text) == []


def test_claim_offsets_and_computed_value():
    text = "pool: 8 × 4 GB = 30 GB total"
    (c,) = find_claims(text)
    assert text[c.start:c.end] == c.text == "8 × 4 GB = 30 GB"
    assert text[c.rel_at] == "=" and c.computed == "32 GB" and c.stated.text == "30 GB"


@pytest.mark.parametrize("text,expected", [
    ("1,234,567.8 GB", [(1.2345678e15, "B")]),
    ("48k tokens", [(48000.0, "")]),
    ("8k1k v0.20.1 TP8 #1574 4-48", []),
    ("-16 GiB", [(-16 * 2**30, "B")]),
    ("5 bytes/token", [(5.0, "B")]),
    ("50%", [(0.5, "")]),
], ids=["grouped decimal GB", "kilo suffix", "identifiers and ranges", "negative", "bytes word", "percent"])
def test_quantities(text, expected):
    assert [(pytest.approx(q.value), q.dim) for q in quantities(text)] == expected


@pytest.mark.parametrize("key,unit", [
    ("cpu_bytes_to_use", "B"), ("total-cpu-dram-gb", "GB"), ("l1-size-gib", "GiB"), ("hicache-size", None),
    ("max-num-seqs", None), ("TOTAL_CPU_DRAM_GB", "GB"),
], ids=lambda v: str(v))
def test_key_unit(key, unit):
    assert key_unit(key) == unit


def test_value_quantity_and_pairs():
    assert value_quantity("cpu_bytes_to_use", "898012569600") == (898012569600.0, "B", 1.0)
    assert value_quantity("x", "'200GB'") == (200e9, "B", 1e9)
    assert value_quantity("dram-utilization", "0.086") == (0.086, "", pytest.approx(0.001))
    assert value_quantity("image", "vllm/vllm:v1") is None
    assert value_pairs("  cpu_bytes_to_use: 898012569600  # note") == [("cpu_bytes_to_use", "898012569600")]
    assert ("cpu_bytes_to_use", "5") in value_pairs("""kv: '{"cpu_bytes_to_use": 5, "x": 1}'""")
    assert value_pairs("export CPU_BYTES=112251571200") == [("CPU_BYTES", "112251571200")]
    assert ("kv-offloading-size", "898") in value_pairs("    --kv-offloading-size 898 \\")


def test_mentions():
    text = "dram-utilization 0.086 x 2990 GB = 257 GB; max_num_seqs=32; tp 8"
    assert [q.text for q in mentions(text, "dram-utilization")] == ["0.086"]
    assert [q.text for q in mentions(text, "max-num-seqs")] == ["32"]
    assert mentions(text, "tp") == []  # too short to trust in prose


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 ,.xX×*/+-=~≈<>()%kGBiMT#v:abc\n", max_size=80))
def test_never_raises(text):
    for c in find_claims(text):
        assert c.start <= c.rel_at <= c.end


def test_huge_input_is_bounded():
    assert isinstance(find_claims("1 x 2 = 2 " * 50_000), list)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="0123456789 ,.xX×*/+-−^=~≈≃≤≥<>()%kGBiMTP_#v:abcofrsn\n\t", max_size=60))
def test_the_prefilter_only_skips_text_without_claims(text):
    """find_claims skips tokenizing text that fails `_may_claim`; the full parse must agree it holds none."""
    from rules.claims import parse

    if not parse._may_claim(text):
        toks = parse.tokenize(text)
        assert parse._relation_claims(text, toks) + parse._across_claims(text, toks) == []


@pytest.mark.parametrize("text", [
    "4 x 8 = 32", "a 4x8=32 b", "4 * 8 =~ 32", "4 * 8 ≈ ~32", "4 GB + 4 GB <= .8 GB", "2 = 4 - 2",
    "50% of 8 = 4", "112 GB per rank, 896 GB across the 8 ranks", "tp 2 * 4 =\n8",
])
def test_the_prefilter_admits_claims(text):
    from rules.claims import parse

    assert parse._may_claim(text) and find_claims(text)


@pytest.mark.parametrize("text", ["TP=8 * 2", "max_num_seqs=32 x 2", "EP=12: 15P+3D", "dram-gb=3000 + 1"])
def test_the_prefilter_skips_signs_glued_to_words(text):
    from rules.claims import parse

    assert not parse._may_claim(text)
    toks = parse.tokenize(text)
    assert parse._relation_claims(text, toks) == []
