"""Line-aware, bounded YAML parsing shared by every rule.

`parse_yaml` never raises: it returns a `Document` whose `error` says why the text could not be
used (syntax error with its line, duplicate key, too large, too deeply nested, alias bomb, not
UTF-8). Parsing is ruamel.yaml round-trip, so every mapping and sequence knows its lines.
"""
from __future__ import annotations

import functools
import gc
import io
import re
import threading
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

# Bounded time and memory on hostile input (see the issue on hostile PRs).
MAX_YAML_BYTES = 8 * 1024 * 1024
# Real recipes and configs nest < 20 levels; past these the parsers only burn time to fail.
MAX_FLOW_DEPTH = 64
MAX_INDENT = 512
MAX_EXPANDED_NODES = 2_000_000


@dataclass(frozen=True)
class YamlError:
    """Why a YAML text could not be used, and where (1-based line, or None)."""

    line: int | None
    message: str


@dataclass
class Document:
    """A parsed YAML file: `data` is ruamel's round-trip tree (None when `error` is set)."""

    path: str
    text: str
    data: Any = None
    error: YamlError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def line_of(self, *keys: Any) -> int | None:
        """1-based line of the value at `keys` (its key's line for mappings), None if absent."""
        return line_of(self.data, *keys)


def line_of(node: Any, *keys: Any) -> int | None:
    """1-based line of `node[keys[0]][keys[1]]…` in its file (the key's line inside a mapping)."""
    if not keys:
        lc = getattr(node, "lc", None)
        return lc.line + 1 if lc is not None and lc.line is not None else None
    *parents, last = keys
    cur = node
    for k in parents:
        try:
            cur = cur[k]
        except (KeyError, IndexError, TypeError):
            return None
    if isinstance(cur, CommentedMap) and last in cur:
        pos = cur.lc.key(last)
        return pos[0] + 1 if pos else None
    if isinstance(cur, CommentedSeq) and isinstance(last, int) and 0 <= last < len(cur):
        pos = cur.lc.item(last)
        return pos[0] + 1 if pos else None
    return None


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.allow_duplicate_keys = False
    return y


_NO_FAST = object()
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"
_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")


def _fast_lined(text: str):  # noqa: C901 (the fast path's fallbacks plus one branch per YAML node kind)
    """The round-trip tree (CommentedMap/Seq with key and item lines) built from nodes composed by
    ruamel's C parser: about 5x faster than the round-trip loader. Returns _NO_FAST whenever the
    fast path cannot be sure to match the round-trip loader (no C parser, any parse problem, merge
    keys, complex or duplicate keys), and the caller parses the slow, reference way.
    """
    y = _fast_yaml()
    if "CParser" not in getattr(y.Parser, "__name__", ""):
        return _NO_FAST
    try:
        node = y.compose(text)
    except Exception:  # any error: the reference parser words it
        return _NO_FAST
    if node is None:
        return None
    construct = y.constructor.construct_object
    memo: dict[int, object] = {}
    stack_guard = [0]

    def build(n):
        got = memo.get(id(n))
        if got is not None:
            return got
        stack_guard[0] += 1
        if stack_guard[0] > 500:
            raise RecursionError("nesting")
        try:
            if isinstance(n, MappingNode):
                m = CommentedMap()
                memo[id(n)] = m
                m._yaml_set_line_col(n.start_mark.line, n.start_mark.column)
                for kn, vn in n.value:
                    if not isinstance(kn, ScalarNode) or _tag(kn) == _MERGE_TAG:
                        raise _Fallback
                    k = construct(kn, deep=True)
                    if k in m:
                        raise _Fallback
                    m[k] = build(vn)
                    m.lc.add_kv_line_col(k, [kn.start_mark.line, kn.start_mark.column,
                                             vn.start_mark.line, vn.start_mark.column])
                return m
            if isinstance(n, SequenceNode):
                seq = CommentedSeq()
                memo[id(n)] = seq
                seq._yaml_set_line_col(n.start_mark.line, n.start_mark.column)
                for i, it in enumerate(n.value):
                    seq.append(build(it))
                    seq.lc.add_kv_line_col(i, [it.start_mark.line, it.start_mark.column])
                return seq
            tag = _tag(n)
            if tag == _STR_TAG:  # most scalars: no resolver round trip needed
                return n.value
            if tag == _INT_TAG and _PLAIN_INT.match(n.value):
                return int(n.value)
            return construct(n, deep=True)
        finally:
            stack_guard[0] -= 1

    # Building a large tree allocates many containers; the cyclic GC would rescan them over and
    # over (measurably, on a 50,000-key file). The tree has no cycles worth collecting mid-build.
    pause_gc = len(text) > LARGE_YAML_BYTES and gc.isenabled()
    if pause_gc:
        gc.disable()
    try:
        return build(node)
    except (_Fallback, RecursionError, TypeError, ValueError, YAMLError):
        return _NO_FAST
    finally:
        if pause_gc:
            gc.enable()


def _tag(n) -> str:
    """A node's tag; `n.tag` decodes the tag URI on every access, the raw suffix does not."""
    ctag = getattr(n, "ctag", None)
    if ctag is not None and getattr(ctag, "handle", "") is None and isinstance(getattr(ctag, "suffix", None), str):
        return ctag.suffix
    return n.tag


class _Fallback(Exception):
    """The fast path declines; the round-trip loader decides."""


_LOCAL = threading.local()


def _fast_yaml() -> YAML:
    # The safe loader uses ruamel's C parser when it is installed (about 6x faster than round-trip);
    # it gives plain values with no line numbers, for checks that need only values or validity.
    # One instance per thread: building one costs more than loading a small block.
    y = getattr(_LOCAL, "fast", None)
    if y is None:
        y = YAML(typ="safe", pure=False)
        y.allow_duplicate_keys = False
        _LOCAL.fast = y
    return y


_FLOW_TOKENS = re.compile(r"[\[\]{}'\"\n#]")
_DEEP_INDENT = re.compile(rf"^ {{{MAX_INDENT + 1},}}\S", re.M)


def nesting_error(text: str) -> YamlError | None:
    """A cheap pre-scan: flow nesting (`[`/`{` outside quotes and comments) or indentation deeper
    than any real file, reported before a parser spends seconds on it. Only bracket, quote, `#`
    and newline characters are visited; quotes and comments end at the end of their line (an
    approximation that can only under-count)."""
    m = _DEEP_INDENT.search(text)
    if m:
        return YamlError(text.count("\n", 0, m.start()) + 1, f"a line is indented more than {MAX_INDENT} columns")
    if text.count("[") + text.count("{") <= MAX_FLOW_DEPTH:
        return None
    depth, quote, comment, line = 0, None, False, 1
    for m in _FLOW_TOKENS.finditer(text):
        ch = m.group()
        if ch == "\n":
            line += 1
            quote, comment = None, False
            continue
        if comment:
            continue
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch == "#":
            comment = m.start() == 0 or text[m.start() - 1] in " \t\n"
        elif ch in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                return YamlError(line, f"flow collections nest deeper than {MAX_FLOW_DEPTH} levels")
        elif ch in "]}":
            depth = max(0, depth - 1)
        else:
            quote = ch
    return None


def plain(node: Any) -> Any:
    """Plain dict/list copy of a ruamel tree (round-trip maps compare by order; dicts do not)."""
    if isinstance(node, dict):
        return {k: plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


def load_values(path: str, raw: bytes | str | None) -> tuple[object, YamlError | None]:
    """Plain values of a YAML text, fast (no lines), with the same bounds and errors as parse_yaml.

    A construct the safe loader refuses but the round-trip loader accepts (a custom `!tag`) falls
    back to `parse_yaml`, so both agree on what is valid. Large texts are cached: callers must not
    mutate the returned values (copy with `plain()` first).
    """
    if raw is None:
        return None, YamlError(None, "file content is not available")
    text = raw
    if isinstance(raw, bytes):
        if len(raw) > MAX_YAML_BYTES or b"\0" in raw:
            return None, parse_yaml(path, raw).error
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None, parse_yaml(path, raw).error
    if len(text) > MAX_YAML_BYTES:
        return None, parse_yaml(path, text).error
    if len(text) > LARGE_YAML_BYTES:
        # Several rules may load the same large file (validity, master-config keys): load it once.
        return _load_large(path, text)
    return _load_values_text(path, text)


@functools.lru_cache(maxsize=4)
def _load_large(path: str, text: str) -> tuple[object, YamlError | None]:
    return _load_values_text(path, text)


def clear_caches() -> None:
    """Drop the per-review parse caches (the engine calls this after each run): large cached trees
    kept alive would make every later garbage collection slower."""
    _load_large.cache_clear()


def _load_values_text(path: str, text: str) -> tuple[object, YamlError | None]:
    deep = nesting_error(text)
    if deep is not None:
        return None, deep
    data = _fast_lined(text)  # same C parser, fewer resolver round trips than the safe loader
    if data is not _NO_FAST:
        if expanded_size(data) is None:
            return None, YamlError(
                None, f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (alias bomb or recursive alias)")
        return data, None
    try:
        try:
            data = _fast_yaml().load(text)
        except MarkedYAMLError as err:
            if "duplicate" in str(err):
                raise
            # libyaml (C) is stricter than ruamel's YAML 1.2 parser (e.g. `a:1` in a flow mapping):
            # the round-trip parser, the reference for every rule, decides.
            doc = parse_yaml(path, text)
            return (plain(doc.data) if doc.ok else None), doc.error
    except MarkedYAMLError as err:
        if "constructor" in type(err).__name__.lower() and "duplicate" not in str(err):
            doc = parse_yaml(path, text)
            return doc.data, doc.error
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(str(p) for p in (err.context, err.problem) if p) or str(err)
        return None, YamlError(line, problem.replace("\n", " "))
    except RecursionError:
        return None, YamlError(None, "YAML nesting is too deep to parse")
    except (YAMLError, ValueError, TypeError, OverflowError) as err:
        return None, YamlError(None, str(err).splitlines()[0] if str(err) else type(err).__name__)
    if expanded_size(data) is None:
        return None, YamlError(
            None, f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (alias bomb or recursive alias)")
    return data, None


def expanded_size(data: Any, limit: int = MAX_EXPANDED_NODES) -> int | None:
    """Node count with aliases expanded, or None past `limit` or on a recursive alias."""
    memo: dict[int, int] = {}
    in_progress: set[int] = set()
    # Iterative post-order walk, so deep trees cannot exhaust Python's stack.
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        key = id(node)
        if done:
            children = node.values() if isinstance(node, dict) else node
            total = 1
            for c in children:
                if isinstance(c, (dict, list)):
                    total += memo[id(c)]
                else:
                    total += 1
                if total > limit:
                    return None
            memo[key] = total
            in_progress.discard(key)
            continue
        if key in memo:
            continue
        if key in in_progress:
            return None  # a recursive alias expands forever
        in_progress.add(key)
        stack.append((node, True))
        children = node.values() if isinstance(node, dict) else node
        for c in children:
            if isinstance(c, (dict, list)):
                if id(c) in in_progress and id(c) not in memo:
                    return None
                stack.append((c, False))
    return memo.get(id(data), 1)


def parse_yaml(path: str, raw: bytes | str | None) -> Document:
    """Parse `raw` as YAML; the result carries either `data` or an `error`."""
    if raw is None:
        return Document(path, "", error=YamlError(None, "file content is not available"))
    if isinstance(raw, bytes):
        if len(raw) > MAX_YAML_BYTES:
            return Document(path, "", error=YamlError(
                None, f"file is {len(raw):,} bytes; files over {MAX_YAML_BYTES:,} bytes are not parsed"))
        if b"\0" in raw:
            return Document(path, "", error=YamlError(None, "file is binary (contains NUL bytes)"))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            line = raw[: err.start].count(b"\n") + 1
            return Document(path, "", error=YamlError(line, f"not valid UTF-8 (byte {err.start})"))
    else:
        text = raw
        if len(text) > MAX_YAML_BYTES:
            return Document(path, "", error=YamlError(
                None, f"file is {len(text):,} characters; files over {MAX_YAML_BYTES:,} are not parsed"))
    deep = nesting_error(text)
    if deep is not None:
        return Document(path, text, error=deep)
    data = _fast_lined(text)
    if data is not _NO_FAST:
        if expanded_size(data) is None:
            return Document(path, text, error=YamlError(
                None, f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (alias bomb or recursive alias)"))
        return Document(path, text, data=data)
    try:
        data = _yaml().load(io.StringIO(text))
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(str(p) for p in (err.context, err.problem) if p) or str(err)
        return Document(path, text, error=YamlError(line, problem.replace("\n", " ")))
    except RecursionError:
        return Document(path, text, error=YamlError(None, "YAML nesting is too deep to parse"))
    except (YAMLError, ValueError, TypeError, OverflowError) as err:
        return Document(path, text, error=YamlError(None, str(err).splitlines()[0] if str(err) else type(err).__name__))
    if expanded_size(data) is None:
        return Document(path, text, error=YamlError(
            None, f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (alias bomb or recursive alias)"))
    return Document(path, text, data=data)


# Files above this size are validated block by block (see `changed_block_errors`): a full ruamel
# parse of a 10,000-line master config or changelog costs seconds.
LARGE_YAML_BYTES = 64 * 1024
MAX_CHANGED_BLOCKS = 200


# A line that starts a top-level node: not blank, not indented, not a comment; `---`/`...` are
# document markers. Found by one regex pass over the text (a 10,000-line file is split and joined
# block by block otherwise, several times a review).
_BLOCK_START = re.compile(r"\n[^ \t#\r\n]")  # a literal "\n" first: the regex engine scans for it fast
_MARKER = re.compile(r"(?:---|\.\.\.)[^\S\n]*$", re.M)


def _block_offsets(text: str) -> list[tuple[int, int]]:
    """(line, offset) of each top-level start: 1-based line number and its character offset."""
    out = []
    if text[:1] not in ("", " ", "\t", "#", "\r", "\n") and not _MARKER.match(text, 0):
        out.append((1, 0))
    line, prev = 1, 0
    for m in _BLOCK_START.finditer(text):
        off = m.start() + 1
        line += text.count("\n", prev, off)
        prev = off
        if _MARKER.match(text, off):
            continue
        out.append((line, off))
    return out


def _blocks(text: str) -> list[tuple[int, int, str]]:
    """(first, last, text) of each top-level node: the lines first..last joined by newlines."""
    starts = _block_offsets(text)
    last_line = text.count("\n") + 1
    out = []
    for n, (line, off) in enumerate(starts):
        if n + 1 < len(starts):
            nline, noff = starts[n + 1]
            out.append((line, nline - 1, text[off:noff - 1]))
        else:
            out.append((line, last_line, text[off:]))
    return out


def top_level_blocks(text: str) -> list[tuple[int, int]]:
    """(first, last) 1-based line spans of the top-level nodes: each starts at a column-0 line."""
    return [(s, e) for s, e, _ in _blocks(text)]


def changed_block_errors(path: str, head: str, base: str | None) -> tuple[YamlError | None, int]:
    """Validate only the top-level blocks of `head` whose text is not in `base`.

    Returns (first error or None, number of blocks parsed). An error found in a block parsed on its
    own is confirmed by a whole-file parse before it is reported (a block may legitimately lean on
    its neighbours, e.g. an alias), so this never reports an error the full parse would not.
    """
    base_blocks: dict[str, int] = {}
    if base is not None:
        for _, _, t in _blocks(base):
            base_blocks[t] = base_blocks.get(t, 0) + 1
    parsed = 0
    keys: dict[str, int] = {}
    blocks = _blocks(head)
    if len(blocks) - sum(base_blocks.values()) > MAX_CHANGED_BLOCKS:
        # Most of the file changed: one whole-file load is cheaper than many block loads.
        return load_values(path, head)[1], len(blocks)
    for s, _, text in blocks:
        first = text.split("\n", 1)[0]
        if not first.startswith("- ") and ":" in first:
            key = first.split(":", 1)[0].strip().strip("'\"")
            if key in keys:
                return load_values(path, head)[1], parsed
            keys[key] = s
        if base_blocks.get(text):
            base_blocks[text] -= 1
            continue
        parsed += 1
        if load_values(path, text + "\n")[1] is not None:
            return load_values(path, head)[1], parsed
    return None, parsed
