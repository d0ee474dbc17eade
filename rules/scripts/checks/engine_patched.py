"""Flags a line the PR adds to a benchmark script or launcher that patches the serving engine.

## Why it matters
The repository publishes what the pinned image does as shipped: its review checklist forbids
patching the inference engine or its serving stack (F4). A `sed -i` over the engine's installed
sources, a Python here-doc that rewrites them, `git apply` / `patch` of a `.patch` file, files
copied or bind-mounted over the container's engine, or a forked engine (a git URL, a wheel, an editable checkout)
installed over the image all benchmark software nobody else can pull. #2127 was reverted for it.

## When it fires
On the lines the PR adds to shell files (benchmark scripts, launchers, any `.sh` / `.bash`; a
here-doc counts when its body has an added line): it fires for each engine patch when the PR files
no waiver. An engine target is a path under `site-packages`/`dist-packages`/`/sgl-workspace/`, a
`find_spec` / `importlib.util` / `<engine>.__file__` lookup, or a relative `<engine package>/….py`
path of one of `engine_packages`; assignments in the same file are followed
(`INDEXER_PY=/usr/…/vllm/…; sed -i … "$INDEXER_PY"`). A `git apply` or `patch` counts when what it
patches is the engine: its `-d` directory, else the checkout the file cloned last (an engine's
repository; a checkout of the harness, such as srt-slurm, is not the engine: the repository's own
launchers patch it), else a patch file named after an engine package. Not engine patches: `pip
install` of released packages from the index (benchmark clients, `lm-eval`, `datasets`, a pinned
version of a library), `sed -i` over the script's own config or output files, and edits of checkouts
of the repository's own harness. Dry runs (`--check`, `--dry-run`) change nothing.

The rule is read from the base revision's guidance (AGENTS.md, CLAUDE.md, CONTRIBUTING.md,
`docs/PR_REVIEW_CHECKLIST.md`): a base whose guidance does not forbid patches yet (before July 2026)
is Skipped with that reason, and so is a review that did not read it.

The one exception is a waiver filed in the same PR, `docs/waiver/<PR number>.md` (in the directory
of the layout the PR touches); with it, the patch is reported as a passed check (waiver-incomplete
judges what the waiver says). A shell file with no engine patch on its added lines passes.

## Example
    sed -i '102,108d' /usr/local/lib/python3.12/dist-packages/flashinfer/jit/cubin_loader.py
    pip install "git+https://github.com/someone/vllm.git@fix-branch"

## Fix
Drop the patch and run the image as shipped (take a released image that has the fix), or add
`docs/waiver/<PR number>.md` to this PR saying what is patched, why the upstream image cannot run
the benchmark, the upstream PR or issue, and when the patch goes away.

## Options
`engine_packages`: the Python packages that count as the engine (engines and the kernel libraries
they load).
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import touched
from rules.scripts.patching import ENGINE_PACKAGES, find_patches, pr_waivers, waiver_dirs, written_rule

CODE = "RR430"
NAME = "engine-patched"
SEVERITY = Severity.BLOCKING
PROOF = "written:F4"
ENFORCES = ("F4",)


class Options(RuleOptions):
    engine_packages: tuple[str, ...] = ENGINE_PACKAGES


def _shell(ctx: ReviewContext, path: str) -> bool:
    return ctx.kind(path) in ("scripts", "launchers") or path.endswith((".sh", ".bash"))


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    cs = ctx.changeset
    if not any(_shell(ctx, f.path) for f in cs.files if f.status != "removed"):
        return
    rule = written_rule(cs, "patch")
    if rule is None:
        yield Skipped("the base revision's guidance was not read, so whether it forbids engine patches is unknown")
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "forbid engine patches yet")
        return
    said = f"{rule.path}:{rule.line}: {rule.text}"
    waivers = pr_waivers(cs)
    for f in cs.files:
        if f.status == "removed" or not _shell(ctx, f.path) or f.head_text is None:
            continue
        added = touched(ctx, f.path)
        if added is not None and not added:
            continue
        patches = find_patches(f.path, f.head_text, added, options.engine_packages)
        for p in patches:
            target = f"the sources of `{p.target}`" if p.target in options.engine_packages else p.target
            if waivers:
                yield Passed(f"{p.path}:{p.line}: {p.what} {target}, waived by {', '.join(waivers)}", path=p.path)
                continue
            want = " or ".join(f"`{d}/{cs.pr_number or '<PR number>'}.md`" for d in waiver_dirs(cs))
            yield Problem(p.path, p.line,
                          f"{p.what} {target}: the pinned image must run as shipped, and this PR files no waiver",
                          end_line=p.end if p.end != p.line else None,
                          fix=f"Remove the patch, or add {want} to this PR (what is patched, why, the upstream link, "
                              "the removal plan).",
                          evidence=(f"no {want} among the PR's files", said))
        if not patches:
            yield Passed(f"{f.path}: no engine patch on the lines the PR adds", path=f.path)
