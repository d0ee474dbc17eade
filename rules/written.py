"""The review rules the target repository writes down, by their catalog ID, in our own short words.

A blocking rule proves its findings in one of three ways (`PROOF` in the rule module; the registry
test holds every blocking rule to it, notes/proof.md says why):

- `"gate"`: a gate of the repository rejects the PR (the PR-run check, or the merge path),
  emulated from the tooling that gate runs;
- `"engine"`: the software that runs the benchmark, at its pinned version, makes the benchmark
  fail, run another point than it reports, or mislabel its result: the serving engine (vLLM,
  SGLang, TensorRT-LLM) and the repository's harness as it executes (bash, `benchmark_lib.sh`,
  the launchers, the sweep generator). The rule's docstring cites the function;
- `"written:<ID>"`: a must/never rule the repository writes down (its checklist, AGENTS.md,
  CONTRIBUTING.md, its procedures and reviewer prompts), listed here by ID, that the diff breaks.

`WRITTEN` maps each ID to the severity the repository gives it (blocking, warning, nit, info)
and a title of ours. The IDs are those of the catalog the project was built from (sections A
changelog, B labels and commands, C master configs, D recipes against master configs,
E arithmetic, F scripts, G the review process).
"""
from __future__ import annotations

import re

PROOF_KINDS = ("gate", "engine", "written")

WRITTEN: dict[str, tuple[str, str]] = {
    # A. the changelog
    "A1": ("blocking", "a PR that changes what a benchmark runs appends a changelog entry"),
    "A2": ("blocking", "new entries go at the physical end of the changelog"),
    "A3": ("blocking", "existing entries are never edited or deleted"),
    "A4": ("blocking", "the head changelog starts with the base bytes, unchanged"),
    "A5": ("blocking", "one empty line before each appended entry, none whitespace-only"),
    "A6": ("blocking", "the changelog ends with exactly one newline"),
    "A7": ("blocking", "no CR, tab or NUL, and valid UTF-8"),
    "A8": ("blocking", "the changelog parses, with no duplicate mapping keys"),
    "A9": ("blocking", "one `- config-keys:` line at column 0 per entry"),
    "A10": ("blocking", "a pr-link correction stands alone and is canonical"),
    "A11": ("blocking", "an appended entry links this PR (or a placeholder while on the PR)"),
    "A12": ("blocking", "an appended entry has the entry schema's keys and types"),
    "A13": ("blocking", "every selected config key exists or its pattern matches one"),
    "A14": ("blocking", "every added or changed master key is selected by a new entry"),
    "A15": ("nit", "an agentic-only change restricts the entry's scenario type"),
    "A16": ("nit", "entry keys in the usual order and indentation"),
    "A17": ("nit", "the description says what changed"),
    "A18": ("blocking", "append-only entries are not mixed with regular ones or with evals"),
    "A19": ("blocking", "append-only entries only add points to existing curves, same image"),
    "A20": ("blocking", "append-only changes reach only the new points"),
    "A21": ("blocking", "the changelog's sweep matrix generates"),
    "A22": ("warning", "no non-link placeholder pr-link when the PR is ready for a sweep"),
    # B. labels and commands
    "B1": ("blocking", "at most one primary sweep label"),
    "B2": ("warning", "a sweep modifier label needs a primary label"),
    "B3": ("nit", "suggest the fail-fast full sweep"),
    "B4": ("blocking", "a reused sweep run needs one full-sweep label and no ineligible modifier"),
    "B5": ("blocking", "sweep reuse is asked for by an authorised comment"),
    "B6": ("blocking", "the reused run belongs to the PR and has its artifacts"),
    "B7": ("info", "a fork PR gets no GPU sweep until a maintainer labels its head"),
    # C. master configs
    "C1": ("blocking", "master configs pass the repository's strict schema"),
    "C2": ("blocking", "config keys follow the prefix-precision-SKU-framework pattern (typically)"),
    "C3": ("blocking", "the model prefix is an active one of MODELS.md"),
    "C4": ("warning", "the runner label exists in runners.yaml"),
    "C5": ("blocking", "images come from a public registry"),
    "C6": ("nit", "images are pinned by tag or digest, never latest"),
    "C7": ("blocking", "vLLM and SGLang configs use the upstream images on established SKUs"),
    "C8": ("blocking", "another engine needs a vLLM or SGLang config of the same model and SKU first"),
    "C9": ("blocking", "no added or changed config of a deprecated model, scenario or precision"),
    "C10": ("warning", "fixed-sequence scripts take the matrix's max model length"),
    "C11": ("warning", "the topology fits the fleet and tiles its nodes"),
    # D. recipes against master configs
    "D1": ("blocking", "recipe and master row agree on workers, parallelism and concurrencies"),
    "D2": ("blocking", "the recipe's container is the master config's image"),
    "D3": ("warning", "the recipe's identity image agrees with its container"),
    "D4": ("blocking", "CONFIG_FILE resolves to a recipe file and an existing variant"),
    "D5": ("nit", "an upstream recipe reference carries a pinned provenance link"),
    # E. arithmetic
    "E1": ("warning", "vLLM capture lists are sorted and unique"),
    "E2": ("warning", "vLLM capture sizes do not exceed max-num-batched-tokens"),
    "E3": ("warning", "a piecewise capture list ends at max-num-batched-tokens"),
    "E4": ("warning", "decode capture sizes are multiples of draft tokens + 1"),
    "E5": ("warning", "decode capture covers max-num-seqs × (draft tokens + 1)"),
    "E6": ("nit", "vLLM capture sizes stay within the playbook's cap"),
    "E7": ("warning", "SGLang EAGLE draft tokens = steps + 1 at top-k 1"),
    "E8": ("warning", "SGLang DP attention: data-parallel size = tensor-parallel size"),
    "E9": ("warning", "SGLang expert-parallel size = tensor-parallel size"),
    "E10": ("warning", "SGLang cuda-graph max batch size within max running requests"),
    "E11": ("warning", "TensorRT-LLM max_num_tokens covers max_batch_size × (draft + 1)"),
    "E12": ("warning", "TensorRT-LLM expert parallelism divides tensor parallelism"),
    "E13": ("warning", "TensorRT-LLM cuda-graph batch sizes sorted, unique, within max_batch_size"),
    "E14": ("blocking", "a role's GPU count is the product of its parallelism"),
    "E15": ("blocking", "GPU memory fractions within their valid range"),
    "E16": ("blocking", "TOTAL_CPU_DRAM_GB is what the generator computes from dram-utilization"),
    "E17": ("blocking", "host KV pools sized by scripts come out of TOTAL_CPU_DRAM_GB"),
    "E18": ("blocking", "TOTAL_CPU_DRAM_GB converts to bytes in decimal units"),
    "E19": ("blocking", "per-rank offload pools add up to the node's budget, and within it"),
    "E20": ("warning", "DP batch arithmetic divides evenly"),
    "E21": ("blocking", "a pinned acceptance length is the committed golden value (by layout)"),
    # F. benchmark scripts
    "F1": ("blocking", "MTP fixed-sequence benchmarks pass the chat template"),
    "F2": ("warning", "vLLM expert parallelism only under an EP_SIZE > 1 guard"),
    "F3": ("warning", "one flag per line in server launch commands"),
    "F4": ("blocking", "no patches to the engine or its image unless waived"),
    "F5": ("blocking", "no overrides that change what the model computes"),
    "F6": ("blocking", "no new directories under the workspace, no root-owned leftovers"),
    "F7": ("blocking", "the runner's launcher resolves the script the config needs"),
    "F8": ("warning", "launchers that start containers import the public image"),
    "F9": ("blocking", "the newer bash conventions: no set -u, no fallbacks for caller inputs"),
    # G. the review process
    "G1": ("blocking", "a CODEOWNER sign-off follows the current checklist template"),
    "G2": ("blocking", "the signer owns the paths the sign-off covers"),
    "G3": ("blocking", "a green sweep on a commit of the PR"),
    "G4": ("blocking", "single-node vLLM/SGLang: a merged upstream recipe with matching arguments"),
    "G5": ("warning", "bilingual title and description, AI disclosure"),
    "G6": ("warning", "enough Pareto points per affected curve"),
    "G7": ("blocking", "draft model weights and KV at their shipped precision"),
}

_PROOF = re.compile(r"^(gate|engine|written:([A-G]\d{1,2}))$")


def proof_problem(proof: object) -> str | None:
    """Why `proof` is not a valid PROOF value, or None when it is."""
    if not isinstance(proof, str):
        return f"PROOF must be a string, not {type(proof).__name__}"
    m = _PROOF.match(proof)
    if m is None:
        return f"PROOF {proof!r} is not 'gate', 'engine' or 'written:<ID>'"
    if m.group(2) and m.group(2) not in WRITTEN:
        return f"PROOF {proof!r} names no written rule"
    if m.group(2) and WRITTEN[m.group(2)][0] != "blocking":
        return f"PROOF {proof!r}: the repository does not make {m.group(2)} blocking"
    return None


def proof_line(proof: str | None) -> str | None:
    """The evidence line that says why a blocking finding is blocking."""
    if not proof:
        return None
    if proof == "gate":
        return "Blocking because a gate of the repository rejects it (emulated from the tooling the gate runs)."
    if proof == "engine":
        return ("Blocking because of how the benchmark's software behaves at its pinned version: the run fails, "
                "runs another point than it reports, or mislabels its result.")
    rid = proof.split(":", 1)[1]
    return f"Blocking because it breaks the repository's written rule {rid} ({WRITTEN[rid][1]})."


# Where a written rule is not covered (a rule declares it in `ENFORCES` and fixtures under
# tests/written/fixtures/<ID>/ prove it), why: `("partly", what is missing)` for a rule a review can
# decide from the repository and GitHub, or `("person", why)` for one that needs judgement or data
# neither holds. `recipe-review docs` writes the table (docs/written-rules.md); a test keeps every
# ID accounted for and drops an entry once the ID is covered.
GAPS: dict[str, tuple[str, str]] = {
    "A3": (
        "partly",
        "enforced as a nit (RR002): judged as blocking, 8 of 10 after the revert exception; a "
        "mis-indented new entry read as a history change was one of the two false",
    ),
    "A4": ("partly", "enforced as a nit (RR002), see A3"),
    "A8": (
        "partly",
        "enforced as a nit (RR012): its gate-rejected parse failures and its duplicate keys no gate "
        "rejects are one rule; an unparsable changelog is still blocked by changelog-format-broken",
    ),
    "A1": (
        "partly",
        "enforced as a nit (RR009, RR024): judged as blocking, 3 of 10 findings proved a benchmark "
        "change; edits after the benchmark client's last run and recipes nothing names are told apart "
        "(RR024), no-op flags and eval-only branches before the client are not yet",
    ),
    "A14": (
        "partly",
        "enforced as a nit (RR011): judged as blocking, 7 of 10 findings were proved; the other "
        "keys came from the base or an integration branch the PR was built on, which a review of "
        "the diff against the merge base cannot tell apart yet",
    ),
    "C2": ("partly", "enforced as a nit (RR103): the repository says keys follow the pattern typically, not always"),
    "C8": ("partly", "engine-first-ordering (RR110) is off by default: it does not read configs/deprecated/, so a "
                     "key restored from there looks new (1 true, 1 false judged)"),
    "A9": ("partly", "changelog-format-broken (RR006) checks entry starts; no fixture of its own yet"),
    "A10": ("partly", "a pr-link correction entry is not judged apart from other entries"),
    "A15": ("partly", "no rule yet asks an agentic-only change to restrict the scenario type"),
    "A16": ("partly", "no rule yet for the order and indentation of entry keys"),
    "A19": ("partly", "the base-versus-head matrix comparison of append-only entries is not built"),
    "A20": ("partly", "tracing an append-only change to the lines existing points execute is not built"),
    "A21": ("partly", "sweep generation is emulated per master key (RR105); the changelog's own matrix has no fixture"),
    "A22": (
        "partly",
        "changelog-pr-link-placeholder (RR005) flags the placeholder whether or not a sweep is asked for",
    ),
    "B1": ("partly", "the App's sweep-gate check counts primary labels; it is not a rule with fixtures"),
    "B2": ("partly", "the App's sweep-gate ignores a lone modifier; it is not a rule with fixtures"),
    "B3": ("partly", "only the App's help text recommends the fail-fast sweep"),
    "B4": ("partly", "the App's `/reuse-sweep-run` command checks the labels; not a rule with fixtures"),
    "B5": ("partly", "who may ask for a reuse is the commenter's permission on GitHub; not judged by a rule"),
    "B6": ("partly", "the reused run's owner and artifacts are Actions data the review does not read yet"),
    "B7": ("partly", "a fork PR is visible on GitHub; nothing reports it yet"),
    "C3": ("partly", "needs MODELS.md, which no revision of the measured history has; not built here"),
    "C4": ("partly", "no rule checks a master row's runner against runners.yaml"),
    "C9": ("partly", "needs MODELS.md's deprecation dates; not built here"),
    "C10": ("partly", "no rule checks that fixed-sequence scripts take the matrix's max model length"),
    "C11": ("partly", "nodes against workers are checked (RR217, RR223); the fleet's size is not"),
    "D1": ("partly", "dp-attention and EP labels are compared (RR215, RR216); workers, TP and conc-list are not"),
    "D3": ("partly", "no rule compares a recipe's identity image with its container"),
    "D4": ("partly", "a selector used as a path is caught (RR420); resolving the variant is not built here"),
    "D5": ("partly", "no rule checks that an upstream recipe link is pinned"),
    "E3": ("partly", "capture-list-end-mismatch (RR202) covers the engine's refusal only"),
    "E6": ("partly", "no rule holds capture sizes to the playbook's cap"),
    "E7": ("partly", "no rule for SGLang's EAGLE draft-token arithmetic"),
    "E8": ("partly", "dp-attention is checked against the master label (RR215), not DP = TP"),
    "E9": ("partly", "EP is checked against the master label (RR216), not EP = TP"),
    "E10": ("partly", "capture ranges are checked against concurrency (RR212, RR213), not max running requests"),
    "E11": ("partly", "no rule for TensorRT-LLM's max_num_tokens"),
    "E12": ("partly", "no rule for TensorRT-LLM's EP dividing TP"),
    "E13": ("partly", "trt-capture-exceeds-max-batch (RR214) checks the upper bound only"),
    "E17": ("partly", "offload pools sized by scripts are not traced to the budget here"),
    "E18": ("partly", "1024-based conversions of the budget are not detected here"),
    "E20": ("partly", "no rule for DP batch divisibility"),
    "E21": ("partly", "needs golden_al_distribution/ lookups; not built here"),
    "F3": ("partly", "no rule yet for one flag per line in launch commands"),
    "F8": ("partly", "no rule yet for the enroot import in launchers"),
    "G1": ("partly", "the sign-off comment is GitHub data; the template check is not built here"),
    "G2": ("partly", "CODEOWNERS and the signer are GitHub data; the scope check is not built here"),
    "G3": ("partly", "the sweep's runs are Actions data; not read by a rule yet"),
    "G4": (
        "person",
        "whether the upstream recipe's arguments match the benchmark's is a reading of another project's docs",
    ),
    "G5": ("partly", "a bilingual title is decidable, an AI disclosure's wording needs a person; not built"),
    "G6": ("person", "how many Pareto points a curve needs is decided per PR by the maintainers (admin bypass)"),
    "G7": ("person", "the precision a draft model ships at is the model publisher's data, not the repository's"),
}
