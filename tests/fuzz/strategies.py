"""Hypothesis strategies for hostile and broken input: webhook deliveries and PR file contents.

Shared by the fuzz tests (modest example counts) and `benchmarks/fuzz.py` (≥ 10,000 cases).
"""
from __future__ import annotations

import difflib
import json
import random
from importlib import resources

from hypothesis import strategies as st

from rules.changeset import ChangeSet, FileChange

# -- webhook deliveries ----------------------------------------------------------------------------

EVENTS = ("pull_request", "issue_comment", "pull_request_review_comment", "check_run", "ping", "push",
          "installation", "", "pull_request\x00", "PULL_REQUEST", "ünïcode")
ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review", "closed", "labeled", "unlabeled", "created",
           "edited", "deleted", "rerequested", "", None, 7, ["opened"], {"a": 1}, "opened\n")

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40))
json_values = st.recursive(json_scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c,
                                                                                                max_size=4),
                           max_leaves=25)


def _pr_payload(number, head, base, repo, action, installation) -> dict:
    return {"action": action, "number": number,
            "pull_request": {"number": number, "head": {"sha": head}, "base": {"sha": base, "ref": "main"}},
            "repository": {"full_name": repo}, "installation": installation}


valid_like_payloads = st.builds(
    _pr_payload,
    number=st.one_of(st.integers(min_value=-5, max_value=10**12), json_values),
    head=st.one_of(st.text(alphabet="0123456789abcdef", min_size=40, max_size=40), json_values),
    base=st.one_of(st.text(alphabet="0123456789abcdef", min_size=40, max_size=40), json_values),
    repo=st.one_of(st.sampled_from(["octo/bench", "o/r", "/", "noslash", "a/b/c", ""]), json_values),
    action=st.sampled_from(ACTIONS),
    installation=st.one_of(st.none(), st.fixed_dictionaries({"id": st.one_of(st.integers(), json_values)}),
                           json_values),
)


@st.composite
def mutated_payload(draw) -> dict:
    """A plausible payload with fields deleted or replaced by values of the wrong type."""
    p = draw(valid_like_payloads)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from([("pull_request",), ("pull_request", "head"), ("pull_request", "head", "sha"),
                                     ("pull_request", "base"), ("pull_request", "number"), ("repository",),
                                     ("repository", "full_name"), ("action",), ("installation",), ("number",)]))
        cur = p
        for k in path[:-1]:
            cur = cur.get(k) if isinstance(cur, dict) else None
        if isinstance(cur, dict):
            if draw(st.booleans()):
                cur.pop(path[-1], None)
            else:
                cur[path[-1]] = draw(json_values)
    return p


@st.composite
def webhook_bodies(draw) -> bytes:
    kind = draw(st.sampled_from(["json", "payload", "mutated", "bytes", "text", "nested", "big"]))
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    if kind == "payload":
        return json.dumps(draw(valid_like_payloads)).encode()
    if kind == "mutated":
        return json.dumps(draw(mutated_payload())).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "text":
        return draw(st.text(max_size=200)).encode("utf-8", "surrogatepass")
    if kind == "nested":  # deep JSON: the parser's recursion limit must not become a 500
        n = draw(st.integers(10, 100_000))
        return b"[" * n + b"]" * n if draw(st.booleans()) else b'{"a":' * n + b"1" + b"}" * n
    return b'{"action": "opened", "pad": "' + b"x" * draw(st.integers(0, 200_000)) + b'"}'


HEADER_NAMES = ("X-GitHub-Event", "X-GitHub-Delivery", "X-Hub-Signature-256", "Content-Type", "Content-Length",
                "X-Hub-Signature", "User-Agent")
header_values = st.one_of(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=80),
                          st.sampled_from(["", "sha256=", "sha256=" + "0" * 64, "sha1=abc", "application/json",
                                           "-1", "99999999999"]))

# -- PR file contents --------------------------------------------------------------------------------

ROOT = "inferencex-e2e"
PATHS = (f"{ROOT}/perf-changelog.yaml", "perf-changelog.yaml", f"{ROOT}/configs/nvidia-master.yaml",
         f"{ROOT}/configs/amd-master.yaml", "configs/amd-master.yaml", f"{ROOT}/configs/runners.yaml",
         f"{ROOT}/benchmarks/single_node/srt-slurm-recipes/kimik3.1/vllm/mi355x-fp4-mtp/agentic.yaml",
         "benchmarks/multi_node/recipes/dsv4/sglang/b200/disagg.yml", "benchmarks/single_node/run_bench.sh",
         ".github/recipe-review.yml", "deprecated/configs/old-master.yaml", "README.md", "docs/image.png",
         "a/" * 40 + "deep.yaml", "perf-changelog.yaml/../x.yaml", "ünï/cödé.yaml")

KEYS = ("config-keys", "scenario-type", "description", "pr-link", "image", "model", "precision", "framework",
        "runner", "seq-len-configs", "search-space", "conc-start", "conc-end", "tp", "ep", "isl", "osl",
        "base", "schema", "name", "roles", "agg", "prefill", "decode", "args", "env", "gpus", "gpus_per_node",
        "resources", "gpu_type", "engine", "type", "benchmark", "override", "max-num-batched-tokens",
        "max-num-seqs", "compilation-config", "kv-transfer-config", "cpu-offload-gb", "dram-utilization",
        "gpu-memory-utilization", "tensor-parallel-size", "speculative-config", "num_speculative_tokens",
        "TOTAL_CPU_DRAM_GB", "rules", "paths", "severity", "enabled", "options")
yaml_keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=15), st.integers(-3, 3), st.booleans(), st.none())
yaml_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**80, max_value=2**80), st.floats(), st.text(max_size=60),
    st.sampled_from(["https://github.com/demo-org/inferencex/pull/4867", "https://github.com/x/y/pull/XXXX",
                     "TBD", "0x10", "1e400", "-.inf", ".nan", "8192", "'{\"cudagraph_capture_sizes\":[1,2,8704]}'",
                     '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[5,10,8192]}',
                     "rocm/vllm:latest", "lmsysorg/sglang@sha256:" + "a" * 64, "2700 × 41,574,656 = 898 GB"]))
yaml_trees = st.recursive(yaml_scalars, lambda c: st.lists(c, max_size=5) | st.dictionaries(yaml_keys, c, max_size=6),
                          max_leaves=40)


def dump_yaml(data) -> str:
    import io

    from ruamel.yaml import YAML

    y = YAML(typ="safe")
    y.default_flow_style = False
    buf = io.StringIO()
    try:
        y.dump(data, buf)
    except Exception:  # e.g. keys ruamel cannot represent: fall back to JSON, which is YAML too
        return json.dumps(data, default=str)
    return buf.getvalue()


def _demo_texts() -> list[str]:
    files = resources.files("bot").joinpath("demo_data")
    return [p.read_text(encoding="utf-8") for p in sorted(files.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".yaml")]


DEMO_TEXTS = _demo_texts()


def alias_bomb(levels: int, width: int) -> str:
    out = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels):
        out.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(out) + "\n"


def adversarial_table(full: bool = True) -> dict:
    """Hostile file contents by name; `full=False` scales the slow ones down for the test suite."""
    many = 50_000 if full else 300
    huge = 9 * 1024 * 1024 if full else 100_000  # over / under MAX_YAML_BYTES (8 MiB)
    lines = (50 * 1024 * 1024 if full else 16 * 1024) // 32 + 1
    depth = 1000 if full else 100
    return {
        "alias bomb": lambda n: alias_bomb(9 + n % 3, 9).encode(),
        "recursive alias": lambda n: b"a: &a [*a]\nb: &b {x: *b}\n",
        "deep flow nesting": lambda n: b"k: " + b"[" * (depth + n) + b"]" * (depth + n) + b"\n",
        "deep block nesting": lambda n: "".join(f"{' ' * i}k{i}:\n" for i in range(depth // 3 + n)).encode(),
        "deep map nesting": lambda n: b"{a: " * (depth // 2 + n) + b"1" + b"}" * (depth // 2 + n),
        "huge scalar": lambda n: b"description: '" + b"x" * (huge + n) + b"'\n",
        "huge file": lambda n: b"- config-keys: [k]\n  pr-link: x\n" * lines,
        "long line": lambda n: b"k: " + b"9" * ((200_000 if full else 20_000) + n) + b"\n",
        "many keys": lambda n: "".join(f"k{i}: {i}\n" for i in range(many + n)).encode(),
        "invalid utf-8": lambda n: b"config-keys:\n  - \xff\xfe\xc3(\n",
        "lone surrogate bytes": lambda n: b"k: \xed\xa0\x80\n",
        "binary": lambda n: bytes(range(256)) * (1 + n % 4),
        "bom and crlf": lambda n: b"\xef\xbb\xbf- config-keys:\r\n    - a\r\n  pr-link: x\r\n",
        "python tag": lambda n: b"!!python/object/apply:os.system ['touch /tmp/recipe-review-pwned']\n",
        "yaml directives": lambda n: b"%YAML 1.1\n%TAG ! tag:x,2000:\n---\n!x {a: 1}\n...\n---\n- b\n",
        "merge keys": lambda n: b"base: &b {x: 1}\nother:\n  <<: [*b, *b]\n  <<: *b\n",
        "duplicate keys": lambda n: b"a: 1\na: 2\n",
        "tabs": lambda n: b"a:\n\t- b\n",
        "empty": lambda n: b"",
        "only comments": lambda n: b"# nothing\n# here\n",
        "null document": lambda n: b"~\n",
        "numbers everywhere": lambda n: b"- 1\n- 2.5e400\n- .inf\n- 0o777\n- 0x_ff\n",
    }


ADVERSARIAL = adversarial_table(full=False)
ADVERSARIAL_FULL = adversarial_table(full=True)


@st.composite
def mutated_demo(draw) -> bytes:
    text = draw(st.sampled_from(DEMO_TEXTS))
    lines = text.splitlines(keepends=True)
    rnd = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(1, 6))):
        op = rnd.choice(("delete", "duplicate", "insert", "flip", "indent", "swap"))
        if not lines:
            break
        i = rnd.randrange(len(lines))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "insert":
            lines.insert(i, draw(st.text(max_size=40)) + "\n")
        elif op == "flip" and lines[i]:
            j = rnd.randrange(len(lines[i]))
            lines[i] = lines[i][:j] + rnd.choice(":-[]{}&*!|>'\"#% \t0") + lines[i][j + 1:]
        elif op == "indent":
            lines[i] = " " * rnd.randrange(1, 6) + lines[i]
        elif op == "swap":
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines).encode("utf-8", "surrogatepass")


def adversarial(table: dict, max_n: int = 999):
    return st.builds(lambda name, n: table[name](n), st.sampled_from(sorted(table)), st.integers(0, max_n))


def file_contents(full: bool = False):
    return st.one_of(
        st.builds(lambda t: dump_yaml(t).encode(), yaml_trees),
        mutated_demo(),
        adversarial(ADVERSARIAL_FULL, 999) if full else adversarial(ADVERSARIAL, 20),
        st.binary(max_size=400),
        st.text(max_size=400).map(lambda s: s.encode("utf-8", "surrogatepass")),
        st.none(),
    )


def unified_patch(base: bytes | None, head: bytes | None) -> str:
    if len(base or b"") + len(head or b"") > 1024 * 1024:
        return ""  # GitHub sends no patch for large diffs either
    a = (base or b"").decode("utf-8", "replace").splitlines()
    b = (head or b"").decode("utf-8", "replace").splitlines()
    if len(a) + len(b) > 20_000:
        return ""
    return "\n".join(ln for ln in difflib.unified_diff(a, b, lineterm="", n=3) if not ln.startswith(("---", "+++")))


@st.composite
def file_changes(draw, full: bool = False) -> FileChange:
    contents = file_contents(full)
    path = draw(st.sampled_from(PATHS))
    status = draw(st.sampled_from(["added", "modified", "removed", "renamed"]))
    base = None if status == "added" else draw(contents)
    head = None if status == "removed" else draw(contents)
    patch_kind = draw(st.sampled_from(["diff", "diff", "none", "garbage"]))
    patch = (unified_patch(base, head) if patch_kind == "diff" else None if patch_kind == "none"
             else draw(st.text(max_size=200)))
    prev = draw(st.sampled_from(PATHS)) if status == "renamed" else None
    return FileChange(path=path, status=status, base=base, head=head, patch=patch, previous_path=prev,
                      binary=draw(st.booleans()) and head is not None and b"\0" in head)


@st.composite
def changesets(draw, full: bool = False) -> ChangeSet:
    files = draw(st.lists(file_changes(full), min_size=1, max_size=3, unique_by=lambda f: f.path))
    context = draw(st.dictionaries(st.sampled_from(PATHS[2:6]), file_contents(full).filter(lambda c: c is not None),
                                   max_size=2))
    return ChangeSet(files=tuple(files), pr_number=draw(st.one_of(st.none(), st.integers(-1, 10**7))),
                     repo=draw(st.sampled_from([None, "demo-org/inferencex", "x"])),
                     title=draw(st.one_of(st.none(), st.text(max_size=80))), context=context)
