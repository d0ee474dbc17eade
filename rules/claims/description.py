"""What a new changelog entry's description says about the change, checked against the diff.

A description is the permanent record of a sweep, so what it states must be what the PR does.
This module reads the description items of every new entry and extracts claims of five kinds,
each compared with the master configs of the keys the entry selects (base and head):

* **version transitions**: `from X to Y`, `X → Y` / `X -> Y`, `bump/upgrade/update … to Y`, where X
  and Y are version-like (`v0.5.12-cu130`, `0.20.1`, `nightly-20260422`): checked against each
  selected key's base image (X) and head image (Y) — only when X or Y names an image tag of those
  keys at all (a claim about another component is not this check's business);
* **search-space statements**: concurrency ranges (`conc 2-256`, `concurrency 4–64`), `conc-start`
  / `conc-end` settings (`conc-start lowered from 4 to 1 in all search-spaces`) and parallelism
  arms (`TP8`, `DEP8`, `TP4/EP4`) against the head rows of the keys;
* **more / fewer configs** (`cover more configs`, `narrow the search space`) against the rows
  and concurrency points at base and head;
* **runner names**: `cluster:<name>` tokens against the labels of `runners.yaml` at head;
* **omissions**: a changed image, or a changed engine setting of the script the launcher routes a
  selected key to (`rules.scripts.resolve`), that no description item mentions.

Every finding carries the claim, the value found and its line. The parser reads at most
`MAX_ITEM_CHARS` of an item and `MAX_CLAIMS` claims per review; unknown units and shapes are not
claims (never guessed).

Precision (issue 21, notes/claims-conventions.md): a claim is read only where it can be wrong.
A qualifier (`at conc 32-48`) names a subset of the points; negated sentences, sentences about
another key, about what stays unchanged, about results, alternatives or plans claim nothing about
the rows; a claim about named keys or hardware is about those keys; history re-added under other
PRs' links and entries a later entry of the PR supersedes are not compared with the head.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rules.changelog.analysis import Entry, changelog_diffs
from rules.finding import Passed, Problem
from rules.master.analysis import changed_keys, key_info, master_keys, match_keys, parse_image
from rules.master.matrix import conc_values, scenarios_of

MAX_ITEM_CHARS = 4_000
MAX_CLAIMS = 2_000
MAX_ROWS = 20_000
MAX_PER_ITEM = 3  # findings per description item
MAX_ARM_GAP = 40  # characters between an arm (`TP4 dp-attn sweep`) and the range or list it scopes

# A version token ends on a letter or digit: `to v0.5.12-cu130.` ends before the sentence's period.
VERSION = (r"(?:v?\d+(?:\.\d+){1,3}(?:(?:\.|-)?(?:post|rc|dev|a|b)\d+)*(?:[-_][A-Za-z0-9.…]*)*(?<=[A-Za-z0-9])"
           r"|(?:nightly|dev)[\w.-]*?\d{6,}(?:[\w.-]*[A-Za-z0-9])?)")
_VERSION = re.compile(rf"(?<![\w.]){VERSION}(?![\w])")
_TOKEN = re.compile(r"[`'\"]?([A-Za-z0-9][\w.:/@#+-]*[\w])[`'\"]?")
_ARROW = re.compile(rf"(?P<x>(?:\S*?)?{VERSION})\s*(?:→|->|=>|⟶|➜)\s*(?P<y>(?:\S*?)?{VERSION})")
_FROM_TO = re.compile(
    rf"\bfrom\s+[`'\"]?(?P<x>[\w./:@#+-]*?{VERSION})[`'\"]?\s+to\s+[`'\"]?(?P<y>[\w./:@#+-]*?{VERSION})", re.I
)
_TO_ONLY = re.compile(rf"\b(?:bump(?:ed|s)?|upgrad(?:e|ed|es)|updat(?:e|ed|es)|mov(?:e|ed|es)|switch(?:ed|es)?)\b"
                      rf"[^.;→]*?\bto\s+[`'\"]?(?P<y>[\w./:@#+-]*?{VERSION})", re.I)
_CONC_RANGE = re.compile(r"\b(?:conc(?:urrenc(?:y|ies))?|CONC)\s*(?:range\s*)?(?:of\s*|=\s*|:\s*)?"
                         r"\[?(?P<a>\d{1,6})\s*(?:-|–|—|to|\.\.)\s*(?P<b>\d{1,6})\]?(?!\d)(?!\s*(?:GB|MB|%|x))", re.I)
_CONC_SET = re.compile(r"\bconc-(?P<which>start|end)\b[^.;,]*?\bto\s+(?P<v>\d{1,6})\b", re.I)
_ARM = re.compile(r"(?<![\w-])(?P<kind>D?EP|TP|DP)\s?(?P<n>\d{1,3})(?![\w])")
_REMOVAL = re.compile(r"\b(?:remov\w*|drop\w*|delet\w*|without|no longer|instead of|replac\w*|deprecat\w*|disabl\w*|"
                      r"previously|was|were|from)\b", re.I)
# A range or list in a sentence that drops something names what goes away.
_DROPPED = re.compile(r"\b(?:remov\w*|drop\w*|delet\w*|no longer|instead of|replac\w*|deprecat\w*)\b", re.I)
_ALL = re.compile(r"\b(?:all|every|each)\b", re.I)
# Counts of configs; "extend the concurrency range" is about its ends, not how many points run.
_MORE = re.compile(r"\b(?:more|additional|expand\w*|widen\w*|extend\w*|broaden\w*)\s+(?:\w+\s+){0,2}"
                   r"(?:configs?|configurations?|search[- ]?spaces?|points?|coverage|rows?)\b|"
                   r"\bcover\s+more\b", re.I)
_FEWER = re.compile(r"\b(?:fewer|less|narrow\w*|reduc\w*|trim\w*|prun\w*|shrink\w*)\s+(?:the\s+)?(?:\w+\s+){0,2}"
                    r"(?:configs?|configurations?|search[- ]?spaces?|points?|rows?)\b", re.I)
_CLUSTER = re.compile(r"\bcluster:(?P<name>[A-Za-z0-9][\w.-]*)")
_CONC_LIST = re.compile(
    r"(?:\bat\s+|\bconc(?:urrenc(?:y|ies))?\s*(?:=|:)?\s*)\[(?P<list>\d{1,6}(?:\s*,\s*\d{1,6})+)\]", re.I
)


@dataclass(frozen=True)
class Item:
    """One description item of a new entry, with its head line."""

    path: str
    line: int
    text: str
    entry: Entry


def description_items(entry: Entry, path: str) -> list[Item]:
    """The entry's description items with the head line each starts on."""
    data = entry.data if isinstance(entry.data, dict) else {}
    items = data.get("description")
    if isinstance(items, str):
        items = [items]
    if not isinstance(items, list):
        return []
    start = entry.key_lines.get("description", entry.start_line)
    rows = entry.text.split("\n")
    lines = []
    for k in range(start - entry.start_line + 1, len(rows)):
        raw = rows[k]
        if raw.strip() and not raw.startswith("   ") and not raw.lstrip().startswith("- "):
            break
        if raw.startswith("  ") and not raw.startswith("   ") and raw.strip() and not raw.lstrip().startswith("-"):
            break
        if raw.lstrip().startswith("- ") or raw.strip() == "-":
            lines.append(entry.start_line + k)
    out = []
    for i, text in enumerate(items):
        if isinstance(text, str):
            out.append(Item(path, lines[i] if i < len(lines) and len(lines) == len(items) else start,
                            text[:MAX_ITEM_CHARS], entry))
    return out


@dataclass
class KeyImages:
    key: str
    base: str | None
    head: str | None


def _image(info) -> str | None:
    v = info.get("image") if info is not None else None
    return v if isinstance(v, str) else None


def entry_keys(ctx, entry: Entry) -> list[str]:
    keys = master_keys(ctx, "head")
    out: list[str] = []
    for item in entry.config_keys:
        for k in match_keys(item, keys):
            if k not in out:
                out.append(k)
    return out


def images(ctx, keys: list[str]) -> list[KeyImages]:
    return [KeyImages(k, _image(key_info(ctx, k, "base")), _image(key_info(ctx, k, "head"))) for k in keys]


def core(version: str) -> str:
    """The version part of a claimed token (`sglang:v0.5.12-cu130` → `v0.5.12-cu130`)."""
    m = _VERSION.search(version)
    return m.group(0) if m else version


def in_image(version: str, image: str | None) -> bool:
    """Does the image reference carry this version (as a whole token of its tag)?"""
    if not image:
        return False
    if ":" in version or "/" in version:  # a whole reference (`rocm/atom:rocm7.2.2_…`): compare it whole
        want, img = version.strip("`'\"").lower(), image.lower()
        if img == want or img.endswith("/" + want) or img.split("/")[-1] == want.split("/")[-1]:
            return True
        version = want.rsplit(":", 1)[-1] if ":" in want else want
    ref = parse_image(image)
    tag = ref.tag if ref is not None and ref.tag else image.rsplit(":", 1)[-1]
    v = core(version).lower().lstrip("v")
    t = tag.lower()
    parts = [p for p in re.split(r"\.\.\.|…", v)]
    if len(parts) > 1:  # an abbreviated tag (`rocm7.2.3_..._atom20260511`): the parts, in order
        pattern = r"(?:^|(?<=[^a-z0-9])|(?<=v))" + ".*".join(map(re.escape, parts)) + r"(?![a-z0-9])"
        return re.search(pattern, t) is not None
    for m in re.finditer(re.escape(v), t):
        before = t[m.start() - 1] if m.start() else ""
        after = t[m.end()] if m.end() < len(t) else ""
        if (not before or not before.isalnum() or before == "v") and (not after or not after.isalnum()):
            return True
    return False


# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Contradiction:
    """One description claim that the diff contradicts (or a change the description omits)."""

    kind: str  # version | search-space | count | runner | omission
    item: Item
    message: str
    evidence: tuple[str, ...] = ()


def _rows(value: Any) -> list[tuple[str, Any, Any, dict]]:
    """(scenario, isl, osl, row) of a key's search space."""
    out = []
    sc = scenarios_of(value)
    for name, blocks in (sc or {}).items():
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            for row in block.get("search-space") or []:
                if isinstance(row, dict):
                    out.append((str(name), block.get("isl"), block.get("osl"), row))
                if len(out) >= MAX_ROWS:
                    return out
    return out


def _row_tp(row: dict) -> tuple[int | None, int | None, bool]:
    """(tp, ep, dp-attn) of a single-node row, or of a multi-node row's decode workers."""
    if "tp" in row:
        return row.get("tp"), row.get("ep"), bool(row.get("dp-attn"))
    d = row.get("decode") if isinstance(row.get("decode"), dict) else {}
    return d.get("tp"), d.get("ep"), bool(d.get("dp-attn"))


def _row_arms(row: dict) -> list[tuple[int | None, int | None, bool]]:
    """Every parallelism layout a row names: the row's own, or each worker role's (prefill, decode)."""
    if "tp" in row or not any(isinstance(row.get(r), dict) for r in ("prefill", "decode")):
        return [_row_tp(row)]
    return [(w.get("tp"), w.get("ep"), bool(w.get("dp-attn"))) for r in ("prefill", "decode")
            if isinstance(w := row.get(r), dict)]


def _sku(key: str) -> str | None:
    """The hardware part of a key name (`dsr1-fp4-mi355x-sglang` → `mi355x`), if it has one."""
    parts = key.lower().split("-")
    return parts[2] if len(parts) > 2 else None


def _subjects(segment: str, keys: list[KeyImages], whole: str) -> list[KeyImages]:
    """The keys a claim is about: those the item names (`glm5-fp8-b200-sglang: v0.9.2 → v0.10.0`),
    else those of the hardware its segment names (`… on MI300X`), else all of them."""
    low, seg = whole.lower(), segment.lower()
    named = [k for k in keys if re.search(rf"(?<![\w.-]){re.escape(k.key.lower())}(?![\w.-])", low)]
    if named:
        return named
    by_sku = [k for k in keys if (sku := _sku(k.key)) and
              re.search(rf"(?<![a-z0-9]){re.escape(sku.rstrip('x'))}x?(?![a-z0-9])", seg)]
    return by_sku or keys


def _either(x: str, image: str | None) -> bool:
    """`from v0.9.1/v0.9.0rc1`: a claimed starting point that names alternatives holds when one does."""
    parts = x.split("/") if all(_VERSION.fullmatch(p) for p in x.split("/")) and "/" in x else [x]
    return any(in_image(p, image) for p in parts)


def version_findings(item: Item, imgs: list[KeyImages]) -> list[Contradiction]:
    changed = [k for k in imgs if k.base and k.head and k.base != k.head]
    if not changed:
        return []
    text = item.text
    out = []
    found = sorted([m for m in _FROM_TO.finditer(text)] + [m for m in _ARROW.finditer(text)], key=lambda m: m.start())
    tos = [m.group("y") for m in _TO_ONLY.finditer(text)] if not found else []
    seen = set()
    for i, m in enumerate(found):
        x, y = m.group("x"), m.group("y")
        if (x, y) in seen:
            continue
        seen.add((x, y))
        # Qualifiers after a claim are its own (`from A to B for MI355X, from C to B for MI300X`).
        segment = text[0 if i == 0 else m.start():found[i + 1].start() if i + 1 < len(found) else len(text)]
        keys = _subjects(segment, changed, text)
        x_hits = [k for k in keys if _either(x, k.base)]
        y_hits = [k for k in keys if in_image(y, k.head)]
        mentioned = x_hits or y_hits or any(_either(x, k.head) or in_image(y, k.base) for k in keys)
        if not mentioned:
            continue  # about some other component
        wrong_from = [k for k in keys if not _either(x, k.base)]
        wrong_to = [k for k in keys if not in_image(y, k.head)]
        if wrong_from and (y_hits or x_hits):
            k = wrong_from[0]
            held = f" (true for {', '.join(f'`{h.key}`' for h in x_hits[:3])})" if x_hits else ""
            out.append(
                Contradiction(
                    "version",
                    item,
                    f"The description says `from {core(x)}`, but `{k.key}` was on `{k.base}` at the base{held}.",
                    (f"claim: `{x}` → `{y}`", *(f"`{c.key}`: base `{c.base}`, head `{c.head}`" for c in keys[:4])),
                )
            )
        elif wrong_to and (x_hits or y_hits):
            k = wrong_to[0]
            out.append(Contradiction("version", item,
                               f"The description says `to {core(y)}`, but `{k.key}` is on `{k.head}` at the head.",
                               (f"claim: `{x}` → `{y}`", *(f"`{c.key}`: base `{c.base}`, head `{c.head}`"
                                                           for c in keys[:4]))))
    for y in tos:
        keys = _subjects(text, changed, text)
        if any(in_image(y, k.head) for k in keys) or not any(in_image(y, k.base) for k in keys):
            wrong = [k for k in keys if not in_image(y, k.head)]
            if wrong and any(in_image(y, k.head) for k in keys):
                k = wrong[0]
                out.append(Contradiction("version", item,
                                   f"The description says `to {core(y)}`, but `{k.key}` is on `{k.head}` at the head.",
                                   (f"claim: `… to {y}`", *(f"`{c.key}`: head `{c.head}`" for c in keys[:4]))))
    return out


def search_space_findings(  # noqa: C901 (one loop per kind of claim: ranges, conc settings, lists, arms)
    item: Item, heads: dict[str, Any], others: frozenset[str] = frozenset()
) -> list[Contradiction]:
    """Ranges, `conc-start`/`conc-end` settings, concurrency lists and arms that the head rows contradict.

    `others`: names of master-config keys the entry does not select; a sentence that names one
    is about that key, not about the selected keys."""
    rows = [(k, *r) for k, v in heads.items() for r in _rows(v)]
    if not rows:
        return []
    text = item.text
    out = []
    verdicts: dict[tuple[str, bool], bool] = {}  # one reading per sentence (a long item has many claims)

    def _not_a_claim(sentence: str, others: frozenset[str], measured: bool = False) -> bool:
        if (sentence, measured) not in verdicts:
            verdicts[sentence, measured] = _skip_sentence(sentence, others, measured)
        return verdicts[sentence, measured]

    # An item that reports measurements (`measured: +12 % at conc 64; conc 1-8 flat`)
    # names the points it measured, not the sweep's.
    measured_item = bool(_RESULTS.search(text))
    subjects = _named_keys(text, list(heads))
    if subjects:  # `<key>: TP4 conc 8-64`: that key's rows
        rows = [r for r in rows if r[0] in subjects]
    claims = sorted([(m.start(), m.end()) for m in _CONC_RANGE.finditer(text)]
                    + [(m.start(), m.end()) for m in _CONC_LIST.finditer(text)])
    for m in _CONC_RANGE.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        sent = _sentence(text, m.start())
        scope = _scope(text, m.start())
        if a >= b or measured_item or _historical(text, m.start()) or _not_a_claim(scope, others, measured=True) \
                or _transition(text, m) or _DROPPED.search(scope):
            continue
        # The arm a range belongs to is the one named since the previous range of its sentence
        # (`TP4 (conc 8-64), TP8/EP8 (conc 128-256)`), every part of it (`tp2 ep2`, `DPA+TP8`).
        since = max([e for _, e in claims if e <= m.start()] + [_sentence_start(text, m.start())])
        chain = _arm_chain(text, since, m.start())
        seq = _seq_before(text, m.start(), since)
        groups: dict[str, list[int]] = {}
        for k, _sc, isl, osl, row in rows:
            tp, ep, dpa = _row_tp(row)
            if chain and not _chain_matches(chain, row):
                continue
            if seq is not None and (isl, osl) != seq and isl != seq[0]:
                continue
            cv = conc_values(row)
            if not cv:
                continue
            groups.setdefault("all", []).extend(cv)
            groups.setdefault(f"isl {isl}/osl {osl}", []).extend(cv)
            groups.setdefault(f"tp {tp}", []).extend(cv)
            groups.setdefault(f"isl {isl}/osl {osl}, tp {tp}", []).extend(cv)
            groups.setdefault(f"row {k} {row}", []).extend(cv)
        if not groups:
            continue
        spans = {g: (min(v), max(v)) for g, v in groups.items()}
        per_seq = {g: s for g, s in spans.items() if g.startswith("isl ") and ", tp" not in g}
        if _ALL.search(sent) and seq is None and len(per_seq) > 1:
            bad = {g: s for g, s in per_seq.items() if s != (a, b)}
            if bad:
                g, s = next(iter(bad.items()))
                out.append(Contradiction("search-space", item,
                                   f"The description says `{m.group(0).strip()}` for all sequence lengths, but the "
                                   f"{g} rows{_chain_words(chain)} run {s[0]}–{s[1]}.",
                                   tuple(f"{gg}: {x}–{y}" for gg, (x, y) in list(per_seq.items())[:4])))
            continue
        lo, hi = spans["all"]
        # `at conc 32-48`, `for conc 1-4`: a qualifier names a subset of the points, wrong only
        # when no matching row runs anything in it. A bare statement (`Sweep: TP=4,
        # conc 8-128`) names the range itself: some grouping of the rows must run exactly it.
        if _QUALIFIED.search(text, max(0, m.start() - 40), m.start()):
            wrong = b < lo or a > hi
        else:
            wrong = (a, b) not in spans.values()
        if wrong:
            where = " and ".join(x for x in ("/".join(t.group(0) for t in chain) or None,
                                            f"isl {seq[0]}" if seq else None) if x)
            lo, hi = min(spans.values(), key=lambda sp: (abs(sp[0] - a) + abs(sp[1] - b), sp))
            out.append(
                Contradiction(
                    "search-space",
                    item,
                    f"The description says `{m.group(0).strip()}`{f' ({where})' if where else ''}, but the "
                    f"matching rows run {lo}–{hi}.",
                    tuple(f"{g}: {x}–{y}" for g, (x, y) in list(spans.items())[:5] if not g.startswith("row ")),
                )
            )
    for m in _CONC_SET.finditer(text):
        sent = _sentence(text, m.start())
        if _historical(text, m.start()) or _not_a_claim(_scope(text, m.start()), others):
            continue
        which, v = m.group("which"), int(m.group("v"))
        field_ = f"conc-{which}"
        vals = [(k, row.get(field_)) for k, *_, row in rows if isinstance(row.get(field_), int)]
        if not vals:
            continue
        if _ALL.search(sent):
            bad = [(k, x) for k, x in vals if x != v]
            if bad:
                out.append(Contradiction("search-space", item,
                                   f"The description says `{field_}` is {v} in all search spaces, but "
                                   f"{len(bad)} row(s) still have {field_} {bad[0][1]} (`{bad[0][0]}`).",
                                   (f"{len(vals)} row(s) with {field_}; {len(vals) - len(bad)} equal {v}",)))
        elif not any(x == v for _, x in vals):
            out.append(Contradiction("search-space", item,
                               f"The description says `{field_}` {v}, but no selected row has {field_} {v}.",
                               (f"{field_} values: {sorted({x for _, x in vals})[:8]}",)))
    for m in _CONC_LIST.finditer(text):
        scope = _scope(text, m.start())
        if (
            measured_item
            or _FUTURE.search(scope)
            or _not_a_claim(scope, others, measured=True)
            or _DROPPED.search(scope)
        ):
            continue
        claimed = [int(x) for x in m.group("list").split(",")]
        since = max([e for _, e in claims if e <= m.start()] + [_sentence_start(text, m.start())])
        chain = _arm_chain(text, since, m.start())
        candidates = [
            cv for *_, row in rows for cv in [conc_values(row)] if cv and (not chain or _chain_matches(chain, row))
        ]
        if not candidates:
            continue
        # A list names points (`DEP8 at conc [64, 128]`): wrong only where no matching row runs one.
        run = {c for cv in candidates for c in cv}
        missing = [c for c in claimed if c not in run]
        if not missing:
            continue
        arm = "/".join(t.group(0) for t in chain) or "the selected rows"
        closest = min(candidates, key=lambda cv: len(set(claimed) - set(cv)))
        out.append(Contradiction("search-space", item,
                           f"The description gives {arm} conc {claimed}, but no matching row runs "
                           f"{', '.join(map(str, missing[:6]))}{' …' if len(missing) > 6 else ''}.",
                           (f"{len(candidates)} matching row(s); the closest runs {closest}",)))
    for m in _ARM.finditer(text):
        scope = _scope(text, m.start())
        if (
            measured_item
            or _FUTURE.search(scope)
            or _not_a_claim(scope, others, measured=True)
            or _REMOVAL.search(scope)
        ):
            continue
        if re.match(r"\s*(?:→|->|=>|⟶|to\s)", text[m.end():]):  # `TP8 → TP4`: the old arm
            continue
        if text[max(0, m.start() - 1):m.start()] in ("/", "-") and m.group("kind") == "EP":
            continue  # `TP4/EP4` reads with the TP before it
        n = int(m.group("n"))
        if not any(_chain_matches([m], row) for *_, row in rows):
            present = sorted({f"tp{_row_tp(r)[0]}" for *_, r in rows if _row_tp(r)[0] is not None})
            out.append(Contradiction("search-space", item,
                               f"The description mentions `{m.group(0)}`, but no selected row has "
                               f"{_arm_words(m.group('kind'), n)}.",
                               (f"head rows of the selected keys: {', '.join(present[:8]) or 'none'}",)))
    return out


_CLAUSE_BREAK = re.compile(r"[;,(]|\band\b")
_SEQ = re.compile(r"(?i)(?<![\w.])(?:isl\s*[=:]?\s*(?P<isl>\d{3,6})(?:\s*,\s*(?P<isl2>\d{3,6}))?"
                  r"|(?P<k>1k\s*/?\s*1k|8k\s*/?\s*1k|1k\s*/?\s*8k))(?![\w.])")
_HISTORY = re.compile(r"(?i)\b(?:previously|formerly|before|was|were|old|instead of|from the previous)\b")
# A sentence about the future or a plan is not a claim about this diff ("will expand to … once … lands").
_FUTURE = re.compile(r"(?i)\b(?:will|once|later|planned|plan to|todo|follow[- ]?up|next|eventually|would|"
                     r"before\s+\w+ing|intended|blocked|pending|dormant)\b")
# A negated statement ("the EP8 arm is not wired up", "no tp2") claims nothing about the rows.
_NEGATION = re.compile(r"(?i)\b(?:not|no|never|none|nor|neither|without|cannot|can't|isn't|aren't|wasn't|weren't|"
                       r"doesn't|don't|didn't|won't|hasn't|haven't)\b|n't\b")
# A sentence that calls something unchanged describes the state the PR keeps, not what it sets.
_UNCHANGED = re.compile(
    r"(?i)\b(?:unchanged|untouched|as before|as-is|retain(?:s|ed|ing)?|kept|keeps?|remain(?:s|ed)?)\b"
)
# Results, comparisons and alternatives tried: numbers measured at some points, not the sweep's.
_MEASURED = re.compile(r"(?i)%|(?<![\w.])\d+(?:\.\d+)?x(?![\w])|tok/s|tokens?/s|\b(?:throughput|latency|tpot|ttft|itl|"
                       r"speed-?ups?|faster|slower|improv\w*|uplift|regress\w*|gains?|vs\.?|versus|compared|"
                       r"supersed\w*|fail\w*|attempt\w*|tried|explored|abandon\w*|reject\w*|oom\w*|crash\w*|hung|"
                       r"died|dominated|adopted|broken|bugs?|garbage|garbled|gibberish|collaps\w*|root cause|"
                       r"reproduc\w*|ruled out|unstable)\b")
# An item that reports results: percentages, multiples, rates, "measured".
_RESULTS = re.compile(r"(?i)%|(?<![\w.])\d+(?:\.\d+)?x(?![\w])|tok/s|tokens?/s|\b(?:speed-?ups?|uplift|improv\w*|"
                      r"measured|regress\w*)\b")
# A sentence that says the selected keys copy another config describes that config.
_ELSEWHERE = re.compile(r"(?i)\b(?:mirror(?:s|ed|ing)?|same as|identical to|copied from|based on|borrowed from)\b")
# A range right after one of these names a subset of the points (`at conc 32-48`, `for conc 1-4`,
# `at high concurrency (conc 128-256)`). Not `across`/`from`/`over`: "sweeps TP8 across conc 1-32" and
# "TP4 from conc 8-64" state the range itself.
_QUALIFIED = re.compile(r"(?i)(?:\b(?:at|for|on|in|under|matching|match(?:es|ing)?|like|above|below|beyond|until|up to|"
                        r"around|near|about|after|past|within)|@)"
                        r"\s*(?:(?:the|high|low|mid|higher|lower|large|small|larger|smaller|all)\s+)?"
                        r"(?:concurrenc\w*\s*)?\(?\s*$")
# `conc 4-64 -> 1-128`, `conc 4-64 to 1-128`: the first range is the old state.
_TRANSITION = re.compile(r"\s*(?:→|->|=>|⟶|➜|\bto\b)\s*\[?\d")


def _clause_start(text: str, at: int) -> int:
    starts = [m.end() for m in _CLAUSE_BREAK.finditer(text, 0, at)]
    return starts[-1] if starts else 0


def _sentence_start(text: str, at: int) -> int:
    return max(text.rfind(". ", 0, at) + 1, text.rfind("; ", 0, at) + 1, 0)


def _sentence(text: str, at: int) -> str:
    start = _sentence_start(text, at)
    end = min([i for i in (text.find(". ", at), text.find("; ", at)) if i >= 0] or [len(text)])
    return text[start:end]


def _scope(text: str, at: int) -> str:
    """The claim's sentence without the parentheticals that do not hold it: `start every row at
    conc 2 in all search spaces (the top stays unchanged)` is not about something unchanged."""
    start = _sentence_start(text, at)
    sent = _sentence(text, at)
    rel = at - start
    return re.sub(r"\([^()]*\)", lambda p: p.group(0) if p.start() <= rel < p.end() else " ", sent)


def _names_other_key(sentence: str, others: frozenset[str]) -> bool:
    """The sentence names a master-config key the entry does not select (`mirrors x-fp4-b200-vllm`)."""
    if not others:
        return False
    return any(t.strip(".,;:()[]`'\"").lower() in others for t in re.findall(r"[\w.*-]+", sentence) if "-" in t)


def _skip_sentence(sentence: str, others: frozenset[str], measured: bool = False) -> bool:
    """Sentences that state nothing about the selected rows: negated, unchanged, about another key,
    or (for ranges, lists and arms) results, comparisons and alternatives that were tried."""
    plain = re.sub(r"(?i)\bwith (?:and|or) without\b", "with", sentence)  # both, not a negation
    return bool(_NEGATION.search(plain) or _UNCHANGED.search(sentence) or _ELSEWHERE.search(sentence)
                or _names_other_key(sentence, others)
                or (measured and _MEASURED.search(sentence)))


def _transition(text: str, m: re.Match) -> bool:
    """The range is the old side of `a-b -> c-d` / `from a-b to c-d`."""
    return bool(_TRANSITION.match(text, m.end()) or re.search(r"(?i)\bfrom\s*$", text[max(0, m.start() - 8):m.start()])
                and re.match(r"\s*to\b", text[m.end():]))


def _historical(text: str, at: int) -> bool:
    """The claim at `at` describes the old state (`previously conc=1-64`, `(was 4-64)`) or a plan."""
    if _FUTURE.search(_sentence(text, at)):
        return True
    start = _clause_start(text, at)
    opened = text.rfind("(", 0, at)
    return bool(_HISTORY.search(text, start, at)) or (opened >= 0 and ")" not in text[opened:at] and
                                                       bool(_HISTORY.search(text, opened, at)))


_SEQ_NAMES = {"1k1k": (1024, 1024), "8k1k": (8192, 1024), "1k8k": (1024, 8192)}


def _seqs(text: str, start: int, end: int) -> set[tuple[int, int]]:
    out = set()
    for m in _SEQ.finditer(text, start, end):
        if m.group("isl"):
            out.add((int(m.group("isl")), 1024))
            if m.group("isl2"):
                out.add((int(m.group("isl2")), 1024))
        else:
            out.add(_SEQ_NAMES[re.sub(r"[\s/]", "", m.group("k")).lower()])
    return out


def _seq_before(text: str, at: int, since: int = 0) -> tuple[int, int] | None:
    """The sequence length the claim is about: the one named since the previous claim (`…, 8k1k
    conc 1-4`), else the one its sentence names, else the one the item names (`ISL=8192: …`);
    None when several are named (the claim is about all of them) or none."""
    start = _sentence_start(text, at)
    sent = _sentence(text, at)
    for here in (_seqs(text, since, at), _seqs(text, start, start + len(sent)), _seqs(text, 0, at)):
        if here:
            return next(iter(here)) if len(here) == 1 else None
    return None


# An arm as a scope (`tp2 ep2`, `TP=8, EP=1`, `DPA+TP8`, `dp-attn=false`): any case, `=`/`:` allowed.
_ARM_SCOPE = re.compile(r"(?i)(?<![a-z-])(?:(?P<kind>d?ep|tp|dp)\s?[=:]?\s?(?P<n>\d{1,3})(?![0-9]|[a-z](?!p\d))"
                        r"|(?P<dpa>dpa|dp-attn(?:ention)?|dp[- ]attention)(?:\s*[=:]\s*(?P<v>true|false))?(?![\w-]))")
_BOTH = re.compile(r"(?i)\bwith (?:and|or) without\b|\+/-|±")
_CHAINED = re.compile(r"(?i)^[\s/,+&x()-]*(?:and\s*)?$")


def _arm_chain(text: str, start: int, end: int) -> list[re.Match]:
    """The last run of arm tokens in `text[start:end]` joined only by separators (`TP4/EP4`,
    `tp2 ep2`, `DPA+TP8`, `DP8 (dp-attn)`): the arm the claim after it is about."""
    found = [t for t in _ARM_SCOPE.finditer(text, start, end)  # `no DP-attention` names no arm
             if not re.search(r"(?i)\b(?:no|non|not|without|w/o)[\s-]*$", text[max(0, t.start() - 10):t.start()])]
    if not found or _BOTH.search(text, start, end):
        return []  # `with and without DP attention`, `TP4 +/- dp-attn`: both sides, no one arm
    if end - found[-1].end() > MAX_ARM_GAP:
        return []  # named far before the claim, in another part of the sentence
    chain = [found[-1]]
    for t in reversed(found[:-1]):
        if not _CHAINED.match(text[t.end():chain[0].start()]):
            break
        chain.insert(0, t)
    return chain


def _token_matches(t: re.Match, tp, ep, dpa: bool) -> bool:
    if "dpa" in t.re.groupindex and t.group("dpa"):
        return dpa is ((t.group("v") or "true").lower() == "true")
    return _arm_matches(t, tp, ep, dpa)


def _recipe_names(row: dict) -> str:
    """The recipe files a multi-node row names (`…-dep4-tep8.yaml`): they run what they say."""
    out = []
    for r in (row, row.get("prefill"), row.get("decode")):
        if isinstance(r, dict) and isinstance(r.get("additional-settings"), list):
            out += [str(x).lower() for x in r["additional-settings"]]
    return " ".join(out)


def _chain_matches(chain: list[re.Match], row: dict) -> bool:
    """Every part of the arm is one of the row's (any worker role's), or a recipe file it names."""
    arms = _row_arms(row)
    names = _recipe_names(row)
    for t in chain:
        spelled = re.sub(r"[\s=:]", "", t.group(0)).lower()
        if not any(_token_matches(t, *a) for a in arms) and not (
                t.group("kind") and re.search(rf"(?<![a-z0-9]){re.escape(spelled)}(?![0-9])", names)):
            return False
    return True


def _chain_words(chain: list[re.Match]) -> str:
    return f" of {'/'.join(t.group(0) for t in chain)}" if chain else ""


def _named_keys(text: str, keys: list[str]) -> list[str]:
    low = text.lower()
    return [k for k in keys if re.search(rf"(?<![\w.-]){re.escape(k.lower())}(?![\w.-])", low)]


def _arm_matches(m: re.Match, tp, ep, dpa: bool) -> bool:
    kind, n = m.group("kind").upper(), int(m.group("n"))
    ep = 1 if ep is None else ep  # a row without `ep` runs without expert parallelism
    if kind == "TP":
        return tp == n  # `TP4` is said of DP-attention prefill workers too (`1 prefill TP4` with dp-attn)
    if kind == "EP":
        return ep == n
    if kind == "DEP":
        return dpa and (ep == n or tp == n)  # `DEP2` prefill: DP attention over 2 ranks (tp 2, dp-attn)
    if kind == "DP":
        # `DP8` is DP attention over 8 ranks (dp-attn at tp 8); in `TP8/DP2/EP16` it is a
        # data-parallel size (tp × dp = ep); `DP16/EP16` names the expert group it spans.
        return (dpa and tp == n) or ep == n or (isinstance(tp, int) and tp * n == ep)
    return True


def _arm_words(kind: str, n: int) -> str:
    return {"TP": f"tp {n}", "EP": f"ep {n}", "DEP": f"ep {n} with dp-attn",
            "DP": f"dp-attn with tp {n} or a data-parallel size {n}"}.get(kind.upper(), kind)


def count_findings(item: Item, bases: dict[str, Any], heads: dict[str, Any]) -> list[Contradiction]:
    more, fewer = _MORE.search(item.text), _FEWER.search(item.text)
    if not more and not fewer:
        return []
    if not bases or set(bases) != set(heads):
        return []
    b_rows = [r for v in bases.values() for r in _rows(v)]
    h_rows = [r for v in heads.values() for r in _rows(v)]
    b_pts = sum(len(conc_values(r[3])) for r in b_rows)
    h_pts = sum(len(conc_values(r[3])) for r in h_rows)
    facts = (f"search-space rows: {len(b_rows)} at base, {len(h_rows)} at head",
             f"concurrency points: {b_pts} at base, {h_pts} at head")
    if more and not fewer and len(h_rows) < len(b_rows) and h_pts < b_pts:
        return [Contradiction("count", item, f"The description says `{more.group(0)}`, but the selected keys went from "
                                       f"{len(b_rows)} to {len(h_rows)} search-space rows ({b_pts} → {h_pts} "
                                       f"concurrency points).", facts)]
    if fewer and not more and len(h_rows) > len(b_rows) and h_pts > b_pts:
        return [
            Contradiction(
                "count",
                item,
                f"The description says `{fewer.group(0)}`, but the selected keys went from "
                f"{len(b_rows)} to {len(h_rows)} search-space rows ({b_pts} → {h_pts} "
                f"concurrency points).",
                facts,
            )
        ]
    return []


def runner_findings(item: Item, labels: set[str] | None, nodes: set[str]) -> list[Contradiction]:
    if labels is None:
        return []
    out = []
    for m in _CLUSTER.finditer(item.text):
        name = m.group("name").rstrip(".-")
        label = f"cluster:{name}"
        if label in labels or name in nodes or name in labels:
            continue
        close = sorted(x for x in labels if x.startswith("cluster:") and (name in x or x[8:] in name))[:3]
        out.append(
            Contradiction(
                "runner",
                item,
                f"The description names the runner `{label}`, which `runners.yaml` does not define.",
                (f"{len(labels)} runner labels in runners.yaml" + (f"; similar: {', '.join(close)}" if close else ""),),
            )
        )
    return out


@dataclass
class EntryClaims:
    entry: Entry
    path: str
    items: list[Item] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    findings: list[Contradiction] = field(default_factory=list)
    checked: int = 0  # claims compared


def _runner_labels(ctx) -> tuple[set[str] | None, set[str]]:
    from rules.master.matrix import runners_config

    data = runners_config(ctx)
    if not isinstance(data, dict):
        return None, set()
    labels = data.get("labels") if isinstance(data.get("labels"), dict) else data
    nodes = {n for v in labels.values() if isinstance(v, list) for n in v if isinstance(n, str)}
    hw = data.get("hardware") if isinstance(data.get("hardware"), dict) else {}
    return {str(k) for k in labels} | {str(k) for k in hw}, nodes


def description_claims(ctx) -> list[EntryClaims]:
    """Per new changelog entry: its items, keys, and every contradicted claim (memoized)."""

    def compute() -> list[EntryClaims]:
        out = []
        budget = MAX_CLAIMS
        labels, nodes = _runner_labels(ctx)
        every = {k.lower() for side in ("head", "base") for k in master_keys(ctx, side)}
        for d in changelog_diffs(ctx):
            if d.skip_reason:
                continue
            # Several new entries that link other PRs are history re-added (a restored or rewritten
            # changelog): their descriptions record those PRs' changes, not this diff.
            pr = ctx.changeset.pr_number
            foreign = {e.pr_number for e in d.new_entries if pr is not None and e.pr_number not in (None, pr)}
            mine = [e for e in d.new_entries if not (len(foreign) > 1 and e.pr_number in foreign)]
            later: dict[int, set[str]] = {}
            seen_after: set[str] = set()
            for e in reversed(mine):
                later[id(e)] = set(seen_after)
                seen_after |= set(entry_keys(ctx, e))
            for e in mine:
                ec = EntryClaims(e, d.path, description_items(e, d.path), entry_keys(ctx, e))
                out.append(ec)
                if not ec.items or budget <= 0:
                    continue
                imgs = images(ctx, ec.keys)
                heads = {k: key_info(ctx, k, "head").value for k in ec.keys}
                bases = {k: b.value for k in ec.keys if (b := key_info(ctx, k, "base")) is not None}
                others = frozenset(every - {k.lower() for k in ec.keys})
                # A later new entry that selects the same keys describes what the PR did next: the
                # head rows are its state, not this entry's (`conc 1-128`, then `drop conc 128 at 8k1k`).
                superseded = set(ec.keys) <= later.get(id(e), set())
                for it in ec.items:
                    budget -= 1
                    if budget <= 0:
                        break
                    ec.checked += 1
                    found = version_findings(it, imgs)
                    if not superseded:
                        found += search_space_findings(it, heads, others) + count_findings(it, bases, heads)
                    found += runner_findings(it, labels, nodes)
                    ec.findings += found[:MAX_PER_ITEM]  # a list of contradictions is read as a few
        return out

    return ctx.memo(("claims", "description"), compute)


def _version_tokens(image: str) -> set[str]:
    """Ways a description may name an image's version: the tag, its version part, the release
    number in it (`0.5.7` of `v0.5.7-rocm700-mi35x`), a date or build stamp (`20260519`), a commit
    hash, the start of a digest."""
    ref = parse_image(image)
    tag = (ref.tag or "") if ref else image.rsplit(":", 1)[-1]
    out = {tag.lower(), core(tag).lower(), core(tag).lower().lstrip("v")} if tag else set()
    out |= {m.group(1) for m in re.finditer(r"(?<![\d.])v?(\d+(?:\.\d+){1,3}(?:\.?(?:post|rc|dev)\d+)?)(?![\d])", tag)}
    out |= set(re.findall(r"(?<!\d)\d{8,14}(?!\d)", tag))
    out |= {
        h.lower()
        for h in re.findall(r"(?<![0-9a-fA-F])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9a-fA-F])", tag)
    }
    if ref is not None and ref.digest:
        out.add(ref.digest.split(":")[-1][:12].lower())
    return {t for t in out if len(t) >= 3}


_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), 1)}
_DATE_PROSE = re.compile(
    r"(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b"
)


def _dates_said(text: str) -> set[str]:
    """`MMDD` of the dates prose names (`the June 3 build` → `0603`)."""
    return {f"{_MONTHS[m.group(1).lower()[:3]]:02d}{int(m.group(2)):02d}" for m in _DATE_PROSE.finditer(text)}


def _image_said(text: str, image: str) -> bool:
    """Does the description name the image's version (in any of `_version_tokens`' forms), or the
    build date of its tag in words (`the June 3 build` for `…-20260603`)?"""
    if any(_says(text, t) for t in _version_tokens(image)):
        return True
    if any(in_image(w, image) for w in re.findall(r"[\w.:/@-]*(?:\.\.\.|…)[\w.:/@…-]*", text)):
        return True  # an abbreviated tag (`rocm7.2.3_..._atom20260511`)
    dates = _dates_said(text)
    return bool(dates) and any(d[4:8] in dates for d in re.findall(r"(?<!\d)20\d{6}(?!\d)", image))


def _says(text: str, token: str) -> bool:
    """`token` occurs in `text` as a whole word; a number may follow letters (`v0.5.7`, `atom20260511`)."""
    for m in re.finditer(re.escape(token), text):
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        if token[:1].isdigit():
            ok = not (before.isdigit() or before == ".")
        else:
            ok = not before.isalnum()
        if ok and not after.isalnum():
            return True
    return False


# Engine arguments that locate things or wire processes together; what they change is not a
# material runtime change (paths, ports, names, logging).
_PLUMBING_FLAGS = frozenset({
    "host", "port", "model", "model-path", "served-model-name", "tokenizer", "trust-remote-code", "download-dir",
    "log-level", "uvicorn-log-level", "disable-log-requests", "disable-log-stats", "enable-log-requests",
    "log-requests", "api-key", "dist-init-addr", "nnodes", "node-rank", "master-addr", "master-port", "host-ip",
    "metrics-port", "enable-metrics", "seed", "config",
    # The parallelism of a point is the search space's (`tp`, `ep`, `dp-attn` of its row): the
    # rows and their description say it, not the flags that pass it on.
    "tensor-parallel-size", "tp", "tp-size", "data-parallel-size", "dp", "dp-size", "expert-parallel-size", "ep",
    "ep-size", "enable-expert-parallel", "enable-dp-attention", "pipeline-parallel-size", "pp", "pp-size"})
_PLUMBING_SUFFIX = ("-dir", "-path", "-file", "-port", "-host", "-addr", "-address", "-url", "-log", "-name")
_PLUMBING_ENV = re.compile(r"^(?:HF_|HUGGING|TRANSFORMERS_|TOKENIZERS_|PYTHON|PATH$|HOME$|USER$|MODEL|AIPERF_|BENCH_)|"
                           r"_LOG_|(?:VISIBLE_DEVICES|_LOG|_LOGS|LOG_LEVEL|_DIR|_PATH|_FILE|_PORT|_HOST|_ADDR|_PID|_URL|"
                           r"TIMEOUT\w*|_VERBOSITY|_TOKEN|_NAME|_SHA|_COMMIT|_REF|_BRANCH|_REPO|_HASH)$")
_PATHLIKE = re.compile(r"/|\.(?:ya?ml|json|log|txt|sh|py|csv)$", re.I)
# Words of a flag's name too generic to say which setting prose means.
_GENERIC = frozenset(
    {
        "enable",
        "disable",
        "use",
        "num",
        "max",
        "min",
        "size",
        "mode",
        "type",
        "dtype",
        "backend",
        "vllm",
        "sglang",
        "sgl",
        "tllm",
        "trtllm",
        "atom",
        "opt",
        "set",
        "config",
        "value",
        "rocm",
        "hip",
        "no",
    }
)
# Words prose spells out (`paged attention` for `…_PAGED_ATTN`).
_SPELLED = {"attn": "attention", "mem": "memory", "frac": "fraction", "seqs": "sequences", "len": "length",
            "bs": "batch", "tok": "tokens", "ar": "allreduce", "caching": "cache"}
_DEFAULTS = frozenset({"auto", "default", "none", "null", '""', "''"})
_TRIVIAL = frozenset({"true", "false", "on", "off", "yes", "no", "none", "null", "auto", "0", "1", "2"})


def _mentioned(text: str, names: list[str], value: str | None) -> bool:
    """Does the description name the setting (`--kv-cache-dtype`, `kv_cache_dtype`, `kv cache dtype`),
    the distinctive words of its name (`KV cache` for `--kv-cache-dtype`), or its new value (`fp8`)?"""
    for name in names:
        words = [w for w in re.split(r"[-_]+", name.strip("-").lower()) if w]
        if not words:
            continue
        if re.search(r"(?<![a-z0-9])" + r"[\s_-]*".join(map(re.escape, words)) + r"(?![a-z0-9])", text):
            return True
        telling = [w for w in words if w not in _GENERIC]
        if telling and all(any(re.search(rf"(?<![a-z0-9]){re.escape(f)}(?![a-z0-9])", text)
                                for f in (w, _SPELLED.get(w, w))) for w in telling):
            return True
    v = (value or "").strip("\"'").lower()
    return bool(v) and v not in _TRIVIAL and _says(text, v)


def _plumbing_flag(name: str, value: str | None) -> bool:
    n = name.lstrip("-").lower().replace("_", "-")
    return n in _PLUMBING_FLAGS or n.endswith(_PLUMBING_SUFFIX) or bool(value and _PATHLIKE.search(value.strip("\"'")))


MAX_ROUTED_KEYS = 24
MAX_ROUTES_PER_KEY = 4


def _routed_engines(ctx, key: str) -> list[tuple[object, bool]]:
    """(engine command, of a row the PR adds?) for the points the launcher builds for `key` (one
    per machine, spec-decoding, scenario and row age): the script it routes the key to by
    `SPEC_DECODING` and the other point values, not a script whose name looks like the key's."""
    from rules.added import added_in
    from rules.scripts.resolve import key_points, resolutions, resolve_point

    def compute() -> list[tuple[object, bool]]:
        ki = master_keys(ctx, "head").get(key)
        added = added_in(ctx, ki.path) if ki is not None else set()
        found = [(e, r.point.line in added) for r in resolutions(ctx) if r.point.key == key for e in r.engines]
        if found:
            return found
        firsts: dict[tuple, object] = {}
        for p in key_points(ctx, key):
            firsts.setdefault((p.node, str(p.values.get("spec_decoding") or "none"), p.values.get("scenario"),
                               p.line in added), p)
        out = []
        for p in list(firsts.values())[:MAX_ROUTES_PER_KEY]:
            out.extend((e, p.line in added) for e in resolve_point(ctx, p).engines)
        return out

    return ctx.memo(("claims", "routed-engines", key), compute)


@dataclass
class _Settings:
    """What the engine commands of some keys take from one script: flag names, env names, and the
    script lines engine flags take their values from; `*_old` what the rows the PR keeps take."""

    flags: set[str] = field(default_factory=set)  # normalized `--name`
    env: set[str] = field(default_factory=set)
    value_lines: dict[int, str] = field(default_factory=dict)  # script line an engine flag's value is written on → flag
    old_rows: bool = False  # an engine of a row the PR does not add was resolved
    flags_old: set[str] = field(default_factory=set)
    env_old: set[str] = field(default_factory=set)
    lines_old: set[int] = field(default_factory=set)

    def merge(self, o: _Settings) -> None:
        self.flags |= o.flags
        self.env |= o.env
        for line, flag in o.value_lines.items():
            self.value_lines.setdefault(line, flag)
        self.old_rows |= o.old_rows
        self.flags_old |= o.flags_old
        self.env_old |= o.env_old
        self.lines_old |= o.lines_old

    def only_new_rows(self, flag: str | None, env: str | None, line: int | None) -> bool:
        """Only rows the PR adds take this setting (a new arm's own branch of the script)."""
        if not self.old_rows:
            return False
        return not ((flag and flag in self.flags_old) or (env and env in self.env_old)
                    or (line is not None and line in self.lines_old))


def _settings_from(engines: list[tuple[object, bool]], path: str) -> _Settings:
    s = _Settings()
    for eng, new_row in engines:
        if eng.path == path or any(w.path == path for w in eng.argv) or any(
                getattr(v, "path", None) == path for v in eng.env.values()):
            s.old_rows |= not new_row
        for flag, vals in eng.flags().items():
            word = eng.has_flag(flag)
            if word is not None and word.path == path:
                s.flags.add(flag)
                if not new_row:
                    s.flags_old.add(flag)
            for v in vals:
                if v is not None and v.path == path:
                    s.value_lines.setdefault(v.line, flag)
                    if not new_row:
                        s.lines_old.add(v.line)
        for name, var in eng.env.items():
            if getattr(var, "path", None) == path:
                s.env.add(name)
                if not new_row:
                    s.env_old.add(name)
    return s


def omissions(ctx) -> list[tuple[EntryClaims, str, str]]:  # noqa: C901 (image changes, then each script setting by kind, each with its exemptions)
    """(entry, what changed, evidence) for each changed image or engine setting no description mentions.

    An image change of key `k` counts as mentioned when any new entry selecting `k` names the new
    tag or its version in any usual form (`0.5.7` for `v0.5.7-rocm700-mi35x`, the build date, the
    commit hash; "update vllm image" alone does not); it is reported once, on the first entry
    selecting `k`.

    A script's setting change counts only where it is material and belongs to the entry: the
    script is one the PR modifies (a new script's settings are all new, and the entry that adds
    it describes the benchmark, not each line), the engine command the launcher builds for a
    selected key takes the flag, its value or the environment variable from that script, and it
    is not plumbing (paths, ports, names, logging). It is mentioned when an entry selecting such
    a key names the setting, the distinctive words of its name, or its new value; otherwise it is
    reported once, on the last of those entries.
    """
    entries = [ec for ec in description_claims(ctx) if ec.items and ec.keys]
    if not entries:
        return []
    texts = {id(ec): " ".join(i.text for i in ec.items).lower() for ec in entries}
    out: list[tuple[EntryClaims, str, str]] = []
    changed = {c.key: c for c in changed_keys(ctx)}
    done: set[str] = set()
    for ec in entries:
        for k in ec.keys:
            c = changed.get(k)
            if k in done or c is None or c.status != "changed" or c.base is None or c.head is None:
                continue
            done.add(k)
            old, new = _image(c.base), _image(c.head)
            if not old or not new or old == new:
                continue
            said = " ".join(texts[id(e)] for e in entries if k in e.keys)
            if not _image_said(said, new):
                out.append((ec, f"the image of `{k}` (`{old}` → `{new}`)", f"`{k}`.image changed in {c.path}"))
    scripts = [f for f in ctx.changeset.files if ctx.kind(f.path) == "scripts" and f.patch
               and f.status in ("modified", "renamed")]
    if not scripts:
        return out
    # A key the PR adds is a new benchmark: its settings are what the entry that adds it describes.
    keys = list(dict.fromkeys(k for ec in entries for k in ec.keys
                              if not (k in changed and changed[k].status == "added")))[:MAX_ROUTED_KEYS]
    engines = {k: _routed_engines(ctx, k) for k in keys}
    flags = 0
    for f in scripts:
        per_key = {k: _settings_from(engs, f.path) for k, engs in engines.items()}
        owners = [ec for ec in entries if any(k in per_key and (per_key[k].flags or per_key[k].env
                                                                 or per_key[k].value_lines) for k in ec.keys)]
        if not owners:
            continue  # no selected key's engine command comes from this script
        merged = _Settings()
        for k in sorted({k for ec in owners for k in ec.keys if k in per_key}):
            merged.merge(per_key[k])
        said = " ".join(texts[id(ec)] for ec in owners)
        for name, before, after, line in changed_settings(f.patch):
            if name.startswith("--"):
                flag = "--" + name[2:].replace("_", "-")
                if flag not in merged.flags or _plumbing_flag(flag, after) or merged.only_new_rows(flag, None, None):
                    continue
                names = [flag]
            elif name in merged.env and not _PLUMBING_ENV.search(name):
                if merged.only_new_rows(None, name, None):
                    continue
                names = [name]
            elif line in merged.value_lines and not _plumbing_flag(merged.value_lines[line], after):
                if merged.only_new_rows(None, None, line):
                    continue
                names = [name, merged.value_lines[line]]  # `MAX_SEQS=256` feeding `--max-num-seqs`
            else:
                continue
            if _mentioned(said, names, after) or (before is None and after.strip("\"'").lower() in _DEFAULTS):
                continue  # named, or a new flag that spells out the default (`--dtype auto`)
            via = f" (`{names[1]}`)" if len(names) > 1 else ""
            what = (f"`{name}` {before or '(unset)'} → {after or '(set)'}{via}" if before is not None
                    else f"new `{name}{' ' + after if after else ''}`{via}")
            out.append((owners[-1], f"{what} in `{f.path}`", f"{f.path}:{line}: the patch changes {name}"))
            flags += 1
            if flags >= 8:
                return out
    return out


# `--name value`, `--name=value`, or a switch (`--no-enable-prefix-caching \`): value "" then. A
# shell operator after a switch (`>`, `|`, `&&`) is not its value.
_FLAG = re.compile(r"(?<![\w-])(--[a-z][\w-]*)(?:(?:=|[ \t]+)(?![-<>|&;)\\])([^\s\\\"'()<>|&;]+|\"[^\"]*\"|'[^']*'))?")
_ENV = re.compile(r"^\s*(?:export\s+)?([A-Z][A-Z0-9_]{2,})=(\"[^\"]*\"|'[^']*'|\S+)")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _expansion(value: str) -> str | None:
    """`X` for a value that is just `$X` / `${X}` (quoted or not), else None."""
    m = re.fullmatch(r"[\"']?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?[\"']?", value)
    return m.group(1) if m else None


def _same_value(a: str, b: str) -> bool:
    """`0.90` and `0.9`, `"fp8"` and `fp8` are one value."""
    a, b = a.strip("\"'"), b.strip("\"'")
    try:
        return a == b or float(a) == float(b)
    except ValueError:
        return False


def changed_settings(patch: str) -> list[tuple[str, str | None, str, int]]:  # noqa: C901 (a line-by-line patch scan, one branch per kind of diff line)
    """(flag or variable, old value or None, new value, head line) for the flags and assignments
    a script patch adds or changes. A new value that is an expansion (`$X`, `"${X}"`) or an array
    is not read here; an old one that is (`--mem-fraction-static $MEM_FRAC` with `MEM_FRAC=0.85`
    removed) is read through the removed assignment."""
    removed: dict[str, str] = {}
    added: dict[str, tuple[str, int]] = {}
    line_no = 0
    in_hunk = False
    for line in patch.split("\n")[:20_000]:
        h = _HUNK.match(line)
        if h:
            line_no, in_hunk = int(h.group(1)), True
            continue
        if not line or (not in_hunk and line.startswith(("+++", "---"))):
            continue  # file headers come before the first hunk; `---x` inside one removes `--x`
        here = line_no
        if line[0] in "+ ":
            line_no += 1
        if line[0] not in "+-":
            continue
        body = line[1:]
        if body.lstrip().startswith("#"):
            continue
        found = [(m.group(1), m.group(2) or "") for m in _FLAG.finditer(body)]
        m = _ENV.match(body)
        if m and not m.group(2).strip("\"' ").startswith("-"):  # `ARGS="--context-length …"` holds flags
            found.append((m.group(1), m.group(2)))
        for name, value in found:
            if line[0] == "-":
                removed.setdefault(name, value)
            elif not (value.startswith(("$", "(", "\"$", "'$")) or "${" in value or "$(" in value):
                added.setdefault(name, (value, here))
    out = []
    for name, (value, at) in added.items():
        old = removed.get(name)
        var = _expansion(old) if old is not None else None
        if var is not None and var in removed:
            old = removed[var]
        if old is not None and old.startswith("$"):
            if value == "":
                continue  # `--switch $X` before: a switch, or a value from elsewhere; cannot tell
            old = "(computed)"  # `$(( … ))`, `$OTHER`: a value the patch does not spell
        if old is None or not _same_value(old, value):
            out.append((name, old, value, at))
    return out


def changed_flags(patch: str) -> list[tuple[str, str | None, str]]:
    """(flag or env var, old value or None, new value) for engine flags a script patch changes."""
    return [(n, old, new) for n, old, new, _ in changed_settings(patch)]


def claim_checks(ctx, kind: str):
    """What one claim rule yields: a Problem per wrong claim of `kind` in a new entry's
    description (spanning the entry from its first line to the item that says it), then a
    Passed check counting the items compared. Shared by the claim rules, one kind each."""
    checked = 0
    for ec in description_claims(ctx):
        if not ec.items or not ec.keys:
            continue
        checked += ec.checked
        for f in ec.findings:
            if f.kind != kind:
                continue
            yield Problem(f.item.path, min(f.item.entry.start_line, f.item.line), f.message, end_line=f.item.line,
                          evidence=(f"description item: `{f.item.text[:160]}`", *f.evidence,
                                    f"entry selects {len(ec.keys)} key(s): {', '.join(ec.keys[:4])}"))
    if checked:
        yield Passed(f"{checked} description item(s) of new changelog entries compared with the {kind} facts of "
                     f"their keys")
