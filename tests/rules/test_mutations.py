"""Recall: one number changed in a correct recipe is caught on the changed line.

The recipe is the hand-built schema-2 bundle of tests/rules/fixtures/recipes (seven points, the
shape of InferenceX PR #4867). Each mutation edits one number on one line as a PR would, and the
review (all recipe rules, with a master row and a real patch) must report a finding on that line.
Numbers no invariant ties to another (CONC, the conc-1 budget beside its decode-only list, max-model-len,
the interior of the prefill ladder, lowering max-num-seqs, which only over-captures, raising
max-num-batched-tokens above the list's end, which vLLM runs as written, and a shorter draft under a step-1
list, which still covers it) are not mutated: no rule can tell them wrong.
"""
import json
import re

import pytest

from rules.registry import ALL_RULES
from tests.rules.recipe_helpers import MASTER_PATH, SCHEMA2, SCHEMA2_PATH, master, review

RULES = [r for r in ALL_RULES if "RR201" <= r.CODE <= "RR249"]
LINES = SCHEMA2.split("\n")


def _json_line(i: int):
    m = re.match(r"^(\s*[\w-]+: ')(.*)(')$", LINES[i])
    return (m.group(1), json.loads(m.group(2)), m.group(3)) if m else None


def _dump(prefix, data, suffix):
    return prefix + json.dumps(data, separators=(",", ":")) + suffix


def mutations():
    for i, line in enumerate(LINES):
        n = i + 1
        if "compilation-config" in line:
            pre, data, suf = _json_line(i)
            sizes = data["cudagraph_capture_sizes"]
            mns = int(LINES[i - 2].split(":")[1])
            k = _json_line(i + 1)[1]["num_speculative_tokens"]
            dmax = mns * (k + 1)
            for j, s in enumerate(sizes):
                if s <= dmax or j == len(sizes) - 1:
                    new = dict(data, cudagraph_capture_sizes=sizes[:j] + [s + 1] + sizes[j + 1:])
                    yield f"L{n} size[{j}] {s}->{s + 1}", n, _dump(pre, new, suf)
            new = dict(data, max_cudagraph_capture_size=data["max_cudagraph_capture_size"] + 1)
            yield f"L{n} max_cudagraph_capture_size +1", n, _dump(pre, new, suf)
        elif "speculative-config" in line:
            pre, data, suf = _json_line(i)
            step_one = _json_line(i - 1)[1]["cudagraph_capture_sizes"][:2] == [1, 2]
            for d in ((1,) if step_one else (1, -1)):  # a step-1 list still covers a shorter draft
                new = dict(data, num_speculative_tokens=data["num_speculative_tokens"] + d)
                yield f"L{n} num_speculative_tokens {d:+d}", n, _dump(pre, new, suf)
        elif "cpu_bytes_to_use_per_rank" in line:
            yield f"L{n} per-rank bytes x2", n, line.replace("112251571200", "224503142400")
            yield f"L{n} per-rank bytes digit dropped", n, line.replace("112251571200", "11225157120")
        elif re.match(r"^\s+(max-num-seqs|max-num-batched-tokens): \d+$", line):
            key, val = line.split(":")
            if "batched" in key and "16384" in val:
                continue  # the conc-1 decode-only list is deliberately not tied to the budget
            if "batched" in key:
                # A budget above the list's end is normal (a step never runs more than the budget);
                # one below the cap makes vLLM drop the top size and refuse the cap.
                yield f"L{n} {key.strip()} -1", n, f"{key}: {int(val) - 1}"
            else:
                yield f"L{n} {key.strip()} +1", n, f"{key}: {int(val) + 1}"
        elif "TOTAL_CPU_DRAM_GB" in line:
            yield f"L{n} TOTAL_CPU_DRAM_GB +1", n, line.replace("'898'", "'899'")
            yield f"L{n} TOTAL_CPU_DRAM_GB 1799", n, line.replace("'898'", "'1799'")
        elif line.strip() in ("tensor-parallel-size: 8", "gpus: 8"):
            yield f"L{n} {line.strip()} -> 4", n, line.replace("8", "4")
        elif "gpu-memory-utilization" in line:
            yield f"L{n} gpu-memory-utilization 9.0", n, line.replace("0.9", "9.0")


MUTATIONS = list(mutations())


def _apply(n, new_line):
    lines = list(LINES)
    lines[n - 1] = new_line
    return "\n".join(lines)


def test_original_is_clean():
    r = review(SCHEMA2, RULES, path=SCHEMA2_PATH, context={MASTER_PATH: master()})
    assert r.findings == [] and len(MUTATIONS) > 100


@pytest.mark.parametrize("line,new_line", [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_mutation_caught_on_changed_line(line, new_line):
    text = _apply(line, new_line)
    r = review(text, RULES, path=SCHEMA2_PATH, base=SCHEMA2, context={MASTER_PATH: master()})
    assert any(f.line == line for f in r.findings), [(f.code, f.line, f.message) for f in r.findings]
