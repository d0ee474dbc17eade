"""Flags an engine-patch waiver the PR files that lacks something the review checklist asks it to state.

## Why it matters
The checklist accepts an engine patch only with a filled-out waiver, `docs/waiver/<PR number>.md`
in the same PR, and says what the waiver states (at the time of writing: what is patched, why the
upstream image cannot run the benchmark, the upstream PR or issue, and the removal plan). A waiver
that leaves one out is what the CODEOWNER has to send back; saying so before the sign-off saves
a round.

## When it fires
On each waiver the PR adds or edits for itself (`<PR number>.md` in the waiver directory,
`docs/waiver/`, of a layout the PR touches; any number-named `.md` there when the review has no PR
number): it fires, on the waiver's first line, when the waiver does not state one or more of the
parts the base revision's review checklist asks for. What a waiver states is read from the
checklist at the base revision (`docs/PR_REVIEW_CHECKLIST.md`: the sentence about the waiver that
lists what it states, split at commas and `and`); with no checklist, or none that lists it, the
check is Skipped with the reason, never guessed. A part counts as present when the waiver uses at
least half of its words (the stems of the longer ones); a part that asks for a link is a URL. A
waiver that states every part passes; a PR that files no waiver is not checked. A nit: the words
are ours to match, not the repository's to prove.

## Example
`docs/waiver/4242.md` says what the patch changes and why, but gives no upstream link and no plan
for removing it.

## Fix
Add the missing parts to the waiver (one short section each).
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.policy import policy_texts
from rules.scripts.patching import pr_waivers

CODE = "RR431"
NAME = "waiver-incomplete"
SEVERITY = Severity.NIT
ENFORCES = ("F4",)

CHECKLIST = "PR_REVIEW_CHECKLIST.md"
_LIST = re.compile(
    r"(?i)waiver(?:(?!\.\s).){0,400}?\b(?:stating|states?|stat(?:e|ing) that|must "
    r"(?:state|include|give)|covering)\s+(.+)"
)
_STOP = {"that", "this", "what", "why", "with", "the", "from", "into", "which", "have", "their", "when", "where",
         "cannot", "does", "your", "they", "them", "there", "been", "will", "should"}


def required(text: str) -> tuple[int, list[str]] | None:
    """(line, the parts) of the checklist's sentence that lists what a waiver states (a list item or
    paragraph may wrap over several lines)."""
    flat = text.replace("\n", " ")
    for m in _LIST.finditer(flat):
        clause = re.split(r"\s+[—–-]{1,2}\s+|\)\s|[.;](?:\s|$)", m.group(1))[0]
        parts = [p.strip(" ,") for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", clause) if p.strip(" ,")]
        if len(parts) >= 2:
            return text[: m.start(1)].count("\n") + 1, parts
    return None


def _words(part: str) -> list[str]:
    return [w[:5] for w in re.findall(r"[a-z]{4,}", part.lower()) if w not in _STOP]


def missing(part: str, waiver: str) -> bool:
    low = waiver.lower()
    if re.search(r"\b(?:link|url)\b", part.lower()):
        return not re.search(r"https?://", waiver)
    words = _words(part)
    if not words:
        return False
    have = sum(1 for w in words if w in low)
    return have * 2 < len(words)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    cs = ctx.changeset
    waivers = pr_waivers(cs)
    if not waivers:
        return
    texts = policy_texts(cs, [CHECKLIST])
    if texts is None:
        yield Skipped("the review checklist was not read at the base revision, so what a waiver states is unknown")
        return
    found = next(((p, required(t)) for p, t in sorted(texts.items()) if required(t)), None)
    if found is None:
        why = "has no review checklist" if not texts else "has a review checklist that lists nothing a waiver states"
        yield Skipped(f"the base revision {why}; waivers {', '.join(waivers)} not judged")
        return
    where, (line, parts) = found
    for path in waivers:
        text = (cs.file(path).head_text or "") if cs.file(path) else ""
        lacks = [p for p in parts if missing(p, text)]
        if not lacks:
            yield Passed(f"{path} states all {len(parts)} parts {where}:{line} asks for", path=path)
            continue
        yield Problem(path, 1, f"the waiver does not state {'; '.join(f'`{p}`' for p in lacks)}, which "
                               f"{where} asks a waiver to state",
                      evidence=(f"{where}:{line} lists: " + "; ".join(parts),))
