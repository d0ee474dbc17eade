"""Numeric claims in prose: parse the arithmetic a comment or description states, and check it.

Comments and changelog descriptions state arithmetic ("2700 blocks x 41,574,656 B =
112,251,571,200 B per rank, 898 GB across the 8 ranks"). `find_claims(text)` finds two kinds:

* **relations**: `A = B` (also `≈`, `~=`, `≤`, `<`, `≥`, `>`) where both sides are numeric and at
  least one side is arithmetic (`x`/`×`/`*`/`·`, `/`, `+`, ` - `, `^`/`**`, `P% of Q`). Chains
  (`a = b = c`) are checked pair by pair.
* **across**: `T across (the) M ranks` next to a per-unit quantity in the same clause
  (`Q per rank`, `Q/GPU`, `Q each`): checks `T = Q × M`.

The parser is deliberately conservative: anything it cannot read completely (a symbol operand
such as `tp*pp`, a range `4-48`, an identifier `TP8`, a version `v0.20.1`, a PR number `#1574`,
a token glued to the expression such as `2:1`) makes that side symbolic, and a symbolic side is
never checked. It never raises on any input.

Numbers: `1,234,567.8` (thousands separators), `.5`, `1e9`, `48k` (read as ×1000 or ×1024:
either makes a claim hold), `~5` (approximate: ±10 %). Units: `B`/`byte(s)`, decimal
`KB`/`MB`/`GB`/`TB`, binary `KiB`/`MiB`/`GiB`/`TiB`, and `%`. Per-unit suffixes (`GB/GPU`,
`B per rank`) and count nouns (`8 GPUs`, `2700 blocks`) are labels, not operands.

Tolerance respects the precision written: a number standing alone on one side of a relation
(its "result") may be rounded or floored at its last written digit (`898 GB` for
898,012,569,600 B; `112.25 GB` for 112,251,571,200 B), so it stands for ±1 unit of that digit;
decimal operands inside an expression stand for ±½ unit; integer operands are exact.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# Unit -> (dimension, scale to base units).
UNITS: dict[str, tuple[str, float]] = {
    "B": ("B", 1.0), "byte": ("B", 1.0), "bytes": ("B", 1.0),
    "KB": ("B", 1e3), "kB": ("B", 1e3), "MB": ("B", 1e6), "GB": ("B", 1e9), "TB": ("B", 1e12),
    "KiB": ("B", 2.0**10), "MiB": ("B", 2.0**20), "GiB": ("B", 2.0**30), "TiB": ("B", 2.0**40),
    "%": ("", 0.01),
}
APPROX_REL = 0.10  # what `~` / `≈` allows, relative
# Count nouns an "across" claim spreads a total over.
_SPREAD_NOUNS = r"(?:ranks?|gpus?|GPUs?|nodes?|workers?|devices?|cards?|dies|B[0-9]+s|H[0-9]+s|GB[0-9]+s|MI[0-9]+Xs)"
_MAX_TEXT = 20_000  # longer texts are cut (a comment block or a description is far shorter)

_NUM = re.compile(
    r"(?P<approx>~\s?)?(?P<sign>[-−](?=\d))?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)"
    r"(?P<k>[kK](?![A-Za-z0-9_]))?"
    r"(?:\s?(?P<unit>KiB|MiB|GiB|TiB|KB|kB|MB|GB|TB|bytes|byte|B|%)(?![A-Za-z0-9_]))?"
    r"(?P<per>(?:/[A-Za-z][A-Za-z0-9_-]*)+)?"
)
_WORD = re.compile(r"[A-Za-z_$#@{](?:[\w$.{}@#:'-]*[\w$}])?|\S")
_OPS = (("**", "^"), ("×", "*"), ("*", "*"), ("·", "*"), ("⋅", "*"), ("÷", "/"), ("/", "/"), ("+", "+"),
        ("−", "-"), ("^", "^"))
_RELS = (("~=", "≈"), ("=~", "≈"), ("≈", "≈"), ("≃", "≈"), ("==", "="), ("<=", "≤"), (">=", "≥"), ("≤", "≤"),
         ("≥", "≥"), ("=", "="), ("<", "<"), (">", ">"))
_BOUNDARY = ("->", "=>", "→", "!=", "≠", "<-", "<<", ">>")
_LEFT_OPEN = {"(", "[", '"', "'", "`", "“", "‘"}  # may touch a side's first operand
_RIGHT_CLOSE = {")", "]", ",", ";", ".", ":", "!", "?", '"', "'", "`", "”", "’"}


@dataclass(frozen=True)
class Quantity:
    """One number as written, with its value range in base units (bytes for byte units)."""

    text: str
    start: int
    end: int
    value: float  # nominal value in base units
    dim: str  # "B" for bytes, "" for plain numbers
    ulp: float  # one unit of the last written digit, in base units
    approx: bool = False
    kilo: bool = False  # written with a k suffix (1000 or 1024)
    per: str | None = None  # "rank" in `GB/rank` or `GB per rank`
    unit: str | None = None
    num_text: str = ""  # the digits as written (`41,574,656`)
    decimals: int = 0
    grouped: bool = False  # written with thousands separators

    @property
    def integer(self) -> bool:
        return self.decimals == 0 and not self.kilo

    def interval(self, as_result: bool) -> tuple[float, float]:
        """Values this number may stand for: a written result ±1 ulp, an operand ±½ ulp (integers exact)."""
        lo = hi = self.value
        if self.kilo:
            lo, hi = min(self.value, self.value * 1.024), max(self.value, self.value * 1.024)
        if self.approx:
            lo, hi = lo - abs(lo) * APPROX_REL, hi + abs(hi) * APPROX_REL
        if as_result:
            return lo - self.ulp, hi + self.ulp
        if self.integer and not self.approx:
            return lo, hi
        return lo - self.ulp / 2, hi + self.ulp / 2


@dataclass(frozen=True)
class Tok:
    kind: str  # "num" | "op" | "rel" | "word" | "punct" | "stop"
    text: str
    start: int
    end: int
    ws_before: bool
    q: Quantity | None = None
    op: str = ""


@dataclass(frozen=True)
class Side:
    """One side of a relation: operands joined by operators, as written."""

    text: str
    start: int
    end: int
    quantities: tuple[Quantity, ...]
    ops: tuple[str, ...]  # one fewer than quantities
    symbolic: bool = False
    labels: tuple[tuple[str, ...], ...] = ()  # count nouns written after each quantity

    @property
    def arithmetic(self) -> bool:
        return bool(self.ops)

    @property
    def single(self) -> Quantity | None:
        return self.quantities[0] if len(self.quantities) == 1 and not self.ops else None


@dataclass(frozen=True)
class Claim:
    """A checked statement: `holds` with the arithmetic that shows it (`detail`)."""

    kind: str  # "relation" | "across"
    text: str  # the claim as written
    start: int  # offset of the claim's first character in the parsed text
    end: int
    rel_at: int  # offset of the relation sign (or of "across"): where the claim is anchored
    holds: bool
    detail: str  # "2700 × 41,574,656 B = 112,251,571,200 B ✓" / "… ≠ 32 GB"
    computed: str  # what the checked side evaluates to, formatted like the written one
    stated: Quantity | None = None  # the written result a fix would replace (None when both sides compute)
    fixed: str | None = None  # replacement text for `stated` when the claim is false
    quantities: tuple[Quantity, ...] = field(default=())  # every quantity the claim states


# ---------------------------------------------------------------------------------------------
# Tokenizer


def _quantity(m: re.Match, base: int = 0) -> Quantity | None:
    num = m.group("num")
    try:
        value = float(num.replace(",", ""))
    except ValueError:  # pragma: no cover - the regex only admits numbers
        return None
    if not math.isfinite(value):
        return None
    if m.group("sign"):
        value = -value
    mant = num.split("e")[0].split("E")[0]
    decimals = len(mant.split(".", 1)[1]) if "." in mant else 0
    exp = int(num.lower().split("e")[1]) if "e" in num.lower() else 0
    ulp = 10.0 ** (exp - decimals)
    unit = m.group("unit")
    dim, scale = UNITS.get(unit, ("", 1.0)) if unit else ("", 1.0)
    kilo = bool(m.group("k"))
    if kilo:
        scale *= 1000.0
    per = m.group("per")
    return Quantity(
        text=m.group(0), start=base + m.start(), end=base + m.end(), value=value * scale, dim=dim,
        ulp=ulp * scale, approx=bool(m.group("approx")), kilo=kilo,
        per=per.rsplit("/", 1)[1].lower() if per else None, unit=unit, num_text=num, decimals=decimals,
        grouped="," in num)


def _by_first(items) -> dict[str, tuple]:
    """The candidates of each first character, in their original order (the tokenizer's hot path)."""
    out: dict[str, list] = {}
    for item in items:
        out.setdefault((item if isinstance(item, str) else item[0])[0], []).append(item)
    return {k: tuple(v) for k, v in out.items()}


_BOUNDARY_AT = _by_first(_BOUNDARY)
_OPS_AT = _by_first(_OPS)
_RELS_AT = _by_first(_RELS)
_GLUED_WORD = re.compile(r"[\w.,:'-]+")


def tokenize(text: str) -> list[Tok]:  # noqa: C901 (one branch per token class, in priority order)
    """Split prose into numbers, operators, relation signs, words and punctuation."""
    text = text[:_MAX_TEXT]
    toks: list[Tok] = []
    i, n = 0, len(text)
    ws = True
    while i < n:
        c = text[i]
        if c.isspace():
            ws = True
            i += 1
            continue
        prev = text[i - 1] if i else ""
        tok: Tok | None = None
        for b in _BOUNDARY_AT.get(c, ()):
            if text.startswith(b, i):
                tok = Tok("stop", b, i, i + len(b), ws)
                break
        after_op = bool(toks) and toks[-1].kind == "op" and toks[-1].end == i
        glued_prev = not ws and not after_op and bool(prev) and (prev.isalnum() or prev in "_.,#$@{}/\\-")
        if tok is None and (c.isdigit() or c in "~.-−" and i + 1 < n):
            m = _NUM.match(text, i)
            if m and m.group("num") and not glued_prev:
                end = m.end()
                nxt = text[end: end + 2]
                glued_next = bool(nxt) and (
                    nxt[0].isalnum() or nxt[0] == "_" or (nxt[0] in ".-" and nxt[1:2].isalnum())
                )
                attached_x = nxt[:1] in ("x", "X") and text[end + 1: end + 2].isdigit()
                if not glued_next or attached_x:
                    q = _quantity(m)
                    if q is not None:
                        tok = Tok("num", m.group(0), i, end, ws, q=q)
            if tok is None and c.isdigit():
                # A number glued to letters or digits (`8k1k`, `4-48`, `0.20.1`, `TP8`) is a word.
                w = _GLUED_WORD.match(text, i)
                tok = Tok("word", w.group(0), i, w.end(), ws)
        if tok is None and toks and toks[-1].kind == "num" and not ws and c in "xX" and text[i + 1: i + 2].isdigit():
            tok = Tok("op", c, i, i + 1, ws, op="*")
        if tok is None and c in "xX" and ws and (i + 1 >= n or text[i + 1].isspace()):
            tok = Tok("op", c, i, i + 1, ws, op="*")
        if tok is None and c in "-" and ws and (i + 1 < n and text[i + 1].isspace()):
            tok = Tok("op", c, i, i + 1, ws, op="-")
        if tok is None:
            for s, op in _OPS_AT.get(c, ()):
                if text.startswith(s, i):
                    tok = Tok("op", s, i, i + len(s), ws, op=op)
                    break
        if tok is None:
            for s, rel in _RELS_AT.get(c, ()):
                if text.startswith(s, i):
                    tok = Tok("rel", s, i, i + len(s), ws, op=rel)
                    break
        if tok is None:
            m = _WORD.match(text, i)
            w = m.group(0)
            kind = "word" if (w[0].isalnum() or w[0] in "_$#@{") else "punct"
            if kind == "punct" and w in ("~",):
                kind = "punct"
            # `of` right after a percentage multiplies: `75% of 900 GB`.
            if w == "of" and toks and toks[-1].kind == "num" and toks[-1].q and toks[-1].q.unit == "%":
                tok = Tok("op", w, i, m.end(), ws, op="*")
            else:
                tok = Tok(kind, w, i, m.end(), ws)
        toks.append(tok)
        i = tok.end
        ws = False
    return toks


# ---------------------------------------------------------------------------------------------
# Sides


_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9-]*$")
_NOT_NOUNS = {"per", "each", "a", "an", "the", "of", "in", "on", "at", "to", "for", "and", "or", "total", "x"}


def _is_label(t: Tok) -> bool:
    """A count noun after a number (`GPUs`, `blocks`, `prefill`), not an identifier (`PREFILL_NODES`)."""
    return t.kind == "word" and bool(_LABEL.match(t.text)) and t.text.lower() != "x"


def _noun(word: str) -> str:
    w = word.lower()
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


def _operand_back(toks: list[Tok], j: int) -> tuple[int, Quantity | None, tuple[str, ...]]:
    """Operand ending at token j (inclusive), walking back: a number and up to two label words.

    Returns (index of its first token, quantity or None when symbolic, its labels)."""
    words = 0
    k = j
    while k >= 0 and words < 2 and _is_label(toks[k]):
        k -= 1
        words += 1
    if k >= 0 and toks[k].kind == "num":
        return k, toks[k].q, tuple(t.text for t in toks[k + 1: j + 1])
    return j - max(words, 1) + 1, None, ()


def _operand_fwd(toks: list[Tok], j: int) -> tuple[int, Quantity | None, tuple[str, ...]]:
    """Operand starting at token j: a number plus up to two label words. Returns (last index, q, labels)."""
    if j >= len(toks) or toks[j].kind != "num":
        return j, None, ()
    k = j
    words = 0
    while k + 1 < len(toks) and words < 2 and _is_label(toks[k + 1]):
        k += 1
        words += 1
    if words and not (k + 1 < len(toks) and toks[k + 1].kind in ("op", "rel")):
        # Words that no operator follows are prose, except the result's own noun (`= 32 GPUs total`).
        return j, toks[j].q, tuple(t.text for t in toks[j + 1: k + 1])
    return k, toks[j].q, tuple(t.text for t in toks[j + 1: k + 1])


def _glued_op(toks: list[Tok], i: int) -> bool:
    """An operator touching a word (`tp*pp`, `node/4`, `GPU/node`) is notation, not arithmetic."""
    op = toks[i]
    before = toks[i - 1] if i > 0 else None
    after = toks[i + 1] if i + 1 < len(toks) else None
    if before is not None and before.kind == "word" and not op.ws_before:
        return True
    if (op.op == "/" and before is not None and after is not None and before.q and after.q and before.q.kilo
            and after.q.kilo and not op.ws_before and not after.ws_before):
        return True  # `8k/1k` names a sequence-length pair
    return after is not None and after.kind == "word" and not after.ws_before


def _labelled_ratio(labels: list[tuple[str, ...]], ops: list[str]) -> bool:
    """`8 GPU / 2 nodes` reads as "8 GPUs on 2 nodes", not as a division."""
    return any(op == "/" and labels[i] and labels[i + 1] for i, op in enumerate(ops))


def _side_left(text: str, toks: list[Tok], r: int) -> Side | None:
    """The maximal expression ending right before relation token r."""
    j = r - 1
    if j < 0:
        return None
    if toks[j].kind == "word" and not toks[r].ws_before:
        return None  # `TP=4`: the word is what is being set
    qs: list[Quantity] = []
    ops: list[str] = []
    labels: list[tuple[str, ...]] = []
    symbolic = False
    first = j
    while True:
        start, q, lab = _operand_back(toks, j)
        if q is None:
            symbolic = True
        else:
            qs.append(q)
            labels.append(lab)
        first = start
        if start - 1 >= 0 and toks[start - 1].kind == "op":
            symbolic = symbolic or _glued_op(toks, start - 1)
            ops.append(toks[start - 1].op)
            j = start - 2
            if j < 0 or toks[j].kind not in ("num", "word"):
                symbolic = True
                first = start - 1
                break
            continue
        break
    if first - 1 >= 0:
        before = toks[first - 1]
        if not toks[first].ws_before and before.text not in _LEFT_OPEN and before.kind != "rel":
            symbolic = True
    if not qs:
        return None
    qs.reverse()
    ops.reverse()
    labels.reverse()
    symbolic = symbolic or len(ops) != len(qs) - 1 or _labelled_ratio(labels, ops)
    s, e = toks[first].start, toks[r - 1].end
    return Side(text[s:e], s, e, tuple(qs), tuple(ops), symbolic, tuple(labels))


def _side_right(text: str, toks: list[Tok], r: int) -> tuple[Side | None, int]:
    """The maximal expression starting right after relation token r; also its last token index."""
    j = r + 1
    qs: list[Quantity] = []
    ops: list[str] = []
    labels: list[tuple[str, ...]] = []
    symbolic = False
    last = j
    while j < len(toks):
        end, q, lab = _operand_fwd(toks, j)
        if q is None:
            symbolic = True
            last = j
            break
        qs.append(q)
        labels.append(lab)
        last = end
        if end + 1 < len(toks) and toks[end + 1].kind == "op":
            symbolic = symbolic or _glued_op(toks, end + 1)
            ops.append(toks[end + 1].op)
            j = end + 2
            if j >= len(toks) or toks[j].kind != "num":
                symbolic = True
                last = min(j, len(toks) - 1)
                break
            continue
        break
    if not qs:
        return None, last
    if last + 1 < len(toks):
        after = toks[last + 1]
        if not after.ws_before and after.text not in _RIGHT_CLOSE and after.kind != "rel":
            symbolic = True
    symbolic = symbolic or len(ops) != len(qs) - 1 or _labelled_ratio(labels, ops)
    s, e = toks[r + 1].start, toks[last].end
    return Side(text[s:e], s, e, tuple(qs), tuple(ops), symbolic, tuple(labels)), last


def _nouns(labels: tuple[tuple[str, ...], ...]) -> set[str]:
    out = set()
    for lab in labels:
        for w in lab:
            if w.lower() in _NOT_NOUNS:
                break  # `B per rank`: what follows `per` qualifies, it is not counted
            out.add(_noun(w))
    return out


def _nouns_agree(calc: Side, stated: Side) -> bool:
    """The stated result counts what the computation counts: `2 nodes + 2 nodes = 32 H100s` does not."""
    said = _nouns(stated.labels)
    if not said:
        return True
    used = _nouns(calc.labels)
    return not used or bool(said & used)


# ---------------------------------------------------------------------------------------------
# Evaluation (interval arithmetic with dimensions)

Interval = tuple[float, float, str]  # lo, hi, dim


def _mul(a: Interval, b: Interval) -> Interval | None:
    if a[2] and b[2]:
        return None  # bytes × bytes is not a quantity anyone means
    p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(p), max(p), a[2] or b[2]


def _div(a: Interval, b: Interval) -> Interval | None:
    if b[0] <= 0 <= b[1]:
        return None
    if b[2] and b[2] != a[2]:
        return None
    p = [a[0] / b[0], a[0] / b[1], a[1] / b[0], a[1] / b[1]]
    return min(p), max(p), "" if b[2] else a[2]


def _add(a: Interval, b: Interval, sign: int) -> Interval | None:
    if a[2] != b[2]:
        return None
    if sign > 0:
        return a[0] + b[0], a[1] + b[1], a[2]
    return a[0] - b[1], a[1] - b[0], a[2]


def _pow(a: Interval, b: Interval) -> Interval | None:
    if b[2] or a[2] or b[0] != b[1] or not float(b[0]).is_integer() or not 0 <= b[0] <= 64 or a[0] < 0:
        return None
    e = int(b[0])
    try:
        return a[0] ** e, a[1] ** e, ""
    except OverflowError:
        return None


def evaluate(side: Side) -> Interval | None:
    """The range of values a side may stand for, or None when it cannot be evaluated."""
    if side.symbolic or not side.quantities:
        return None
    as_result = not side.ops
    vals: list[Interval] = [(*q.interval(as_result), q.dim) for q in side.quantities]
    ops = list(side.ops)
    for group in (("^",), ("*", "/"), ("+", "-")):
        i = 0
        while i < len(ops):
            if ops[i] in group:
                a, b = vals[i], vals[i + 1]
                op = ops[i]
                r = (_pow(a, b) if op == "^" else _mul(a, b) if op == "*" else _div(a, b) if op == "/"
                     else _add(a, b, 1 if op == "+" else -1))
                if r is None or not (math.isfinite(r[0]) and math.isfinite(r[1])):
                    return None
                vals[i:i + 2] = [r]
                del ops[i]
            else:
                i += 1
    return vals[0]


def _nominal(side: Side) -> float | None:
    """The side's value with every number taken as written (for messages)."""
    exact = Side(side.text, side.start, side.end,
                 tuple(Quantity(q.text, q.start, q.end, q.value, q.dim, 0.0, unit=q.unit) for q in side.quantities),
                 side.ops, side.symbolic)
    iv = evaluate(exact)
    return None if iv is None else iv[0]


def _overlap(a: Interval, b: Interval, rel: str) -> bool:
    """Whether some value of `a` and some value of `b` satisfy `rel`.

    Intervals are treated as open (a written result `5` covers (4, 6), not 4), with a tiny margin
    for floating point."""
    eps = 1e-12 * max(abs(a[0]), abs(a[1]), abs(b[0]), abs(b[1]), 1.0)
    if rel in ("=", "≈"):
        if rel == "≈":
            a = (a[0] - abs(a[0]) * APPROX_REL, a[1] + abs(a[1]) * APPROX_REL, a[2])
        if a[0] == a[1] and b[0] == b[1]:
            return abs(a[0] - b[0]) <= eps
        return a[0] < b[1] - eps and b[0] < a[1] - eps
    if rel in ("≤", "<"):
        return a[0] <= b[1] + eps if rel == "≤" else a[0] < b[1] + eps
    return a[1] + eps >= b[0] if rel == "≥" else a[1] + eps > b[0]


# ---------------------------------------------------------------------------------------------
# Formatting


def format_like(value: float, q: Quantity) -> str:
    """`value` (base units) written the way `q` is written: same unit, decimals, grouping, labels."""
    scale = UNITS[q.unit][1] if q.unit else 1.0
    if q.kilo:
        scale *= 1000.0
    v = value / scale
    body = f"{v:,.{q.decimals}f}" if q.grouped else f"{v:.{q.decimals}f}"
    return q.text.replace(q.num_text, body, 1) if q.num_text else body


def _fmt_value(value: float, dim: str) -> str:
    if dim == "B":
        if abs(value) >= 1e9:
            return f"{value:,.0f} B ({value / 1e9:,.3f} GB)"
        return f"{value:,.0f} B"
    if float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.6g}"


# ---------------------------------------------------------------------------------------------
# Claims


def _relation_claims(text: str, toks: list[Tok]) -> list[Claim]:
    out: list[Claim] = []
    for r, t in enumerate(toks):
        if t.kind != "rel":
            continue
        left = _side_left(text, toks, r)
        right, _ = _side_right(text, toks, r)
        if left is None or right is None or left.symbolic or right.symbolic:
            continue
        if not (left.arithmetic or right.arithmetic):
            continue
        if not (_nouns_agree(left, right) and _nouns_agree(right, left)):
            continue
        lv, rv = evaluate(left), evaluate(right)
        if lv is None or rv is None:
            continue
        rel = t.op
        unit_guess = lv[2] != rv[2]
        if not unit_guess:
            holds = _overlap(lv, rv, rel)
        else:
            # One side carries no unit (`154,250,000,000 × 8 = 1,234 GB`, `8 × 4 = 32 GB`): it may
            # be bytes or the other side's unit. The claim holds if either reading holds.
            unitless_left = not lv[2]
            byte_side = right if unitless_left else left
            scales = {1.0} | {UNITS[q.unit][1] for q in byte_side.quantities if q.unit and UNITS[q.unit][0] == "B"}
            holds = False
            for sc in sorted(scales):
                if unitless_left:
                    holds = holds or _overlap((lv[0] * sc, lv[1] * sc, "B"), rv, rel)
                else:
                    holds = holds or _overlap(lv, (rv[0] * sc, rv[1] * sc, "B"), rel)
        # Which side is the computation and which the stated result?
        stated = right.single if left.arithmetic else left.single if right.arithmetic else None
        calc = left if left.arithmetic else right
        nominal = _nominal(calc)
        cdim = (lv if calc is left else rv)[2]
        computed = (format_like(nominal, stated) if stated is not None and nominal is not None and not unit_guess
                    else _fmt_value(nominal, cdim) if nominal is not None else "?")
        shown_rel = {"≈": "≈", "=": "=", "≤": "≤", "<": "<", "≥": "≥", ">": ">"}[rel]
        if holds:
            detail = f"{left.text} {shown_rel} {right.text} ✓"
            if stated is not None and nominal is not None and rel in ("=", "≈"):
                detail = f"{calc.text} = {_fmt_value(nominal, cdim)}; stated {stated.text} ✓"
        else:
            detail = (f"{calc.text} = {_fmt_value(nominal, cdim) if nominal is not None else '?'}, "
                      f"not {shown_rel} {(right if calc is left else left).text}")
        fixed = None
        if not holds and stated is not None and nominal is not None and rel == "=" and not unit_guess:
            fixed = format_like(nominal, stated)
        s, e = min(left.start, right.start), max(left.end, right.end)
        out.append(Claim("relation", text[s:e], s, e, t.start, holds, detail, computed, stated, fixed,
                         left.quantities + right.quantities))
    return out


_ACROSS = re.compile(r"\bacross\s+(?:the\s+|all\s+|its\s+)?(?P<m>\d+)\s+(?:[A-Za-z0-9-]+\s+)?" + _SPREAD_NOUNS + r"\b")
_PER_WORDS = re.compile(r"\s*(?:per|/|each|a)\s*(?P<unit>rank|gpu|node|worker|device|card)s?\b", re.I)


def _clauses(text: str) -> list[tuple[int, int]]:
    """Sentence-ish spans: split at `;`, `. ` and newlines that end a sentence."""
    out = []
    start = 0
    for m in re.finditer(r";|\.(?=\s|$)|\n\s*\n", text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def _across_claims(text: str, toks: list[Tok]) -> list[Claim]:
    out: list[Claim] = []
    nums = [t.q for t in toks if t.kind == "num" and t.q is not None and t.q.dim == "B"]
    for m in _ACROSS.finditer(text):
        count = int(m.group("m"))
        if count < 2:
            continue
        cs, ce = next(((a, b) for a, b in _clauses(text) if a <= m.start() < max(b, a + 1)), (0, len(text)))
        in_clause = [q for q in nums if cs <= q.start and q.end <= ce]
        # The quantity right before "across" (nothing but spaces between) ...
        near = next((q for q in in_clause if q.end <= m.start() and not text[q.end:m.start()].strip()), None)
        if near is None:
            continue

        def per_unit(q: Quantity) -> bool:
            return bool(q.per or _PER_WORDS.match(text, q.end))

        if per_unit(near):
            # ... is per unit (`1.5 TB (188 GB/GPU across 8 GPUs)`): the total is the nearest
            # earlier byte quantity in the clause, or in the text just before an opening parenthesis.
            per = near
            before = [q for q in nums if q.end <= per.start and not per_unit(q)
                      and (cs <= q.start or text[q.end:per.start].strip(" ~") == "(")]
            total = before[-1] if before else None
        else:
            # ... is the total (`898 GB across the 8 ranks`): the per-unit quantity is the nearest in the clause.
            total = near
            others = sorted(
                (q for q in in_clause if q is not near and per_unit(q)), key=lambda q: abs(q.start - m.start())
            )
            per = others[0] if others else None
        if per is None or total is None:
            continue
        lo, hi = per.interval(as_result=True)
        plo, phi = lo * count, hi * count
        tlo, thi = total.interval(as_result=True)
        holds = _overlap((plo, phi, "B"), (tlo, thi, "B"), "=")
        nominal = per.value * count
        computed = format_like(nominal, total)
        detail = (f"{per.text} × {count} = {_fmt_value(nominal, 'B')}; stated {total.text} ✓" if holds
                  else f"{per.text} × {count} = {_fmt_value(nominal, 'B')}, not {total.text}")
        s, e = min(per.start, total.start), max(m.end(), per.end, total.end)
        out.append(Claim("across", text[s:e], s, e, m.start(), holds, detail, computed, total,
                         None if holds else computed, (per, total)))
    return out


# Necessary conditions for any claim, checked before tokenizing (most comments of a large file fail
# them). A relation claim needs a relation token (`_RELS`: each ends in one of `=<>≈≃≤≥`, or in `~`
# after `=`) followed, across whitespace, by a number token (`_NUM`: optional `~`, sign, then a
# digit or `.digit`); a left side, which a word glued to the sign rules out (`TP=8`: `_side_left`);
# and an arithmetic side, i.e. an operator token: one of `_OPS`, an `x` glued between a number and a
# digit or standing alone, a ` - ` minus, or `of` after a percentage. An "across" claim needs a match
# of `_ACROSS`.
_REL_BEFORE_NUM = re.compile(r"[=<>≈≃≤≥]~?\s*(?:~\s?)?[-−]?\.?\d")
_OPERATOR = re.compile(r"[*×·⋅÷/+−^]|\d[xX]|(?<!\S)[xX](?!\S)|(?<!\S)-\s|%\s*of")
_NUMBER_TAILS = frozenset(UNITS) | {"k", "K"}  # what a number token may end in when its last char is a letter


def _left_side_possible(text: str, at: int) -> bool:
    """Whether the sign at `at` can have a left side: not at the very start, and not glued to a word.

    Glued to letters, the token before the sign is a word (`TP=8`, `max_num_seqs=32`) unless the
    letters end a number token: a unit or `k` (`8 GB=`, `48k=`), a `/per` suffix (`GB/rank=`), or they
    follow a digit in the same run (`8GB=`). Only the plain word case is ruled out."""
    if at == 0:
        return False
    c = text[at - 1]
    if not (c.isalpha() or c == "_"):
        return True
    j = at - 1
    while j >= 0 and (text[j].isalnum() or text[j] in "_.-"):
        j -= 1
    run = text[j + 1:at]
    return any(ch.isdigit() for ch in run) or run in _NUMBER_TAILS or (j >= 0 and text[j] == "/")


def _may_claim(text: str) -> bool:
    if "across" in text and _ACROSS.search(text) is not None:
        return True
    if _OPERATOR.search(text) is None:
        return False
    return any(_left_side_possible(text, m.start()) for m in _REL_BEFORE_NUM.finditer(text))


def find_claims(text: str) -> list[Claim]:
    """Every arithmetic claim in `text`, checked, in text order. Never raises on any str."""
    if not isinstance(text, str):
        return []
    text = text[:_MAX_TEXT]
    if not _may_claim(text):
        return []  # no relation sign before a number and no "across": nothing below could yield a claim
    toks = tokenize(text)
    claims = _relation_claims(text, toks) + _across_claims(text, toks)
    claims.sort(key=lambda c: (c.rel_at, c.kind))
    return claims


def quantities(text: str) -> list[Quantity]:
    """Every number the tokenizer reads in `text` (identifiers, versions and ranges excluded)."""
    return [t.q for t in tokenize(text) if t.kind == "num" and t.q is not None]


# ---------------------------------------------------------------------------------------------
# Values a claim may annotate


_UNIT_WORDS = {"bytes": "B", "byte": "B", "b": None, "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB",
               "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB"}
_VALUE = re.compile(
    r"^\s*(?P<num>-?\d[\d_,]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*(?P<unit>KiB|MiB|GiB|TiB|KB|kB|MB|GB|TB|B)?\s*$"
)


def key_unit(key: str) -> str | None:
    """The byte unit a key name implies (`cpu_bytes_to_use` → B, `total-cpu-dram-gb` → GB), or None."""
    parts = [p for p in re.split(r"[-_.\s]+", key.lower()) if p]
    for p in reversed(parts):
        if p in _UNIT_WORDS and _UNIT_WORDS[p]:
            return _UNIT_WORDS[p]
    return None


def value_quantity(key: str, raw: str) -> tuple[float, str, float] | None:
    """A literal value as (base value, dim, ulp); dim "B" when the value or key name says bytes."""
    m = _VALUE.match(raw.strip().strip("'\""))
    if not m:
        return None
    num = m.group("num").replace("_", "").replace(",", "")
    try:
        v = float(num)
    except ValueError:
        return None
    if not math.isfinite(v):
        return None
    decimals = len(num.split(".", 1)[1].split("e")[0].split("E")[0]) if "." in num else 0
    unit = m.group("unit") or key_unit(key)
    if unit:
        scale = UNITS[unit][1]
        return v * scale, "B", (10.0 ** -decimals) * scale
    return v, "", 10.0 ** -decimals


def norm_key(name: str) -> str:
    """Key names compare case-blind with `-` and `_` alike."""
    return name.strip().strip("'\"").lower().replace("_", "-").lstrip("-")


def mentions(claim_text: str, key: str) -> list[Quantity]:
    """Numbers the text attaches to `key` by name: `dram-utilization 0.086`, `tp=8`, `max_num_seqs: 32`."""
    nk = norm_key(key)
    if len(nk) < 3:
        return []  # `tp`, `ep`: too ambiguous in prose
    out = []
    pattern = re.compile(
        r"(?<![\w-])" + re.escape(nk).replace(r"\-", "[-_]") + r"(?![\w-])\s*(?:[:=]\s*|\s+(?:of\s+|at\s+|is\s+)?)",
        re.I,
    )
    for m in pattern.finditer(claim_text):
        nm = _NUM.match(claim_text, m.end())
        if nm and nm.group("num"):
            nxt = claim_text[nm.end(): nm.end() + 2]
            if nxt and (nxt[0].isalnum() or nxt[0] == "_" or (nxt[0] in ".-" and nxt[1:2].isalnum())):
                continue
            q = _quantity(nm)
            if q is not None:
                out.append(q)
    return out


# ---------------------------------------------------------------------------------------------
# The values a code line sets (what a claim's annotated line says)

_YAML_PAIR = re.compile(
    r"""^\s*(?:-\s+)?["']?(?P<key>[A-Za-z_][\w.-]*)["']?\s*:\s+(?P<value>[^#\s][^#]*?)\s*(?:\s#.*)?$"""
)
_JSON_PAIR = re.compile(r"""["'](?P<key>[A-Za-z_][\w.-]*)["']\s*:\s*(?P<value>-?\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)""")
_SHELL_PAIR = re.compile(
    r"""(?:^|[\s;])(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?)?(?P<key>[A-Za-z_]\w*)=(?P<value>"[^"]*"|'[^']*'|[^\s;#]+)"""
)
_FLAG_PAIR = re.compile(r"""(?:^|\s)--(?P<key>[A-Za-z][\w-]*)(?:=|\s+)(?P<value>"[^"]*"|'[^']*'|[^\s\\#-][^\s\\#]*)""")


def value_pairs(line: str) -> list[tuple[str, str]]:
    """(key, literal value) pairs a code line sets: YAML `k: v`, JSON `"k": v`, shell `K=v`, `--flag v`."""
    out: list[tuple[str, str]] = []
    m = _YAML_PAIR.match(line)
    if m:
        out.append((m.group("key"), m.group("value").strip()))
    out += [(m.group("key"), m.group("value")) for m in _JSON_PAIR.finditer(line)]
    out += [(m.group("key"), m.group("value").strip("'\"")) for m in _SHELL_PAIR.finditer(line)]
    out += [(m.group("key"), m.group("value").strip("'\"")) for m in _FLAG_PAIR.finditer(line)]
    seen = set()
    unique = []
    for k, v in out:
        if (k, v) not in seen:
            seen.add((k, v))
            unique.append((k, v))
    return unique
