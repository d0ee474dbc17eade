"""Master configs as the rules see them: top-level keys, their blocks, values and what a PR changed.

A master config (`configs/*-master.yaml`) is a ~10k-line mapping of config key → settings. A
round-trip parse of one costs about a second, so this module never parses a whole file when it
can avoid it: it finds the top-level keys by scanning column-0 lines, keeps each key's raw text
block, and parses a block (with ruamel's safe loader) only when someone asks for its `value`.
`changed_keys` compares raw blocks first and parses only the blocks whose text differs.

When the column-0 layout is not the plain `key:` form (flow mappings, anchors, document markers,
quoted keys with odd characters), the file falls back to the bounded round-trip parse of
`rules.document`, which is slow but exact.

Everything is memoized on the ReviewContext, so several rules share one scan per file and side.
"""
from __future__ import annotations

import difflib
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from rules.context import ReviewContext
from rules.document import MAX_YAML_BYTES, expanded_size, load_values, nesting_error, parse_yaml, plain
from rules.finding import Skipped

Side = Literal["head", "base"]

# A plain top-level key line: `key:` followed by end of line, a space or a comment.
# Anything else at column 0 (flow collections, anchors, tags, `?`, sequences) takes the exact path.
_KEY_LINE = re.compile(
    r"""^(?:"(?P<dq>[^"\\]*)"|'(?P<sq>[^']*)'|(?P<plain>[^\s#'"{}\[\]&*!|>%@`,?:-][^#]*?))\s*:(?:\s|$)"""
)
_CONFIG_FILE = re.compile(r"CONFIG_FILE=(\S+)")
# Newer layout (RULES.md §1.2): rows name their recipe by directory + file.
RECIPE_DIR_FIELD = "srt-recipe-dir"
RECIPE_FIELDS = ("srt-recipe", "eval-srt-recipe")


def _safe_yaml(pure: bool = False) -> YAML:
    # pure=False: ruamel's C parser when installed (a dependency on CPython), ~6x faster.
    y = YAML(typ="safe", pure=pure)
    y.allow_duplicate_keys = False
    return y




WHOLE_FILE_KEYS = 1000


def parse_block(text: str) -> tuple[Any, str | None]:
    """Parse one key's block with the safe loader: (value of its single key, error or None)."""
    deep = nesting_error(text)
    if deep is not None:
        return None, deep.message
    try:
        try:
            data = _safe_yaml().load(io.StringIO(text))
        except MarkedYAMLError:
            # libyaml (C) is stricter than ruamel's YAML 1.2 parser (e.g. `a:1` inside a flow
            # mapping): the pure parser decides before anything is reported.
            data = _safe_yaml(pure=True).load(io.StringIO(text))
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f" (block line {mark.line + 1})" if mark is not None else ""
        return None, f"{err.problem or err.context or 'YAML error'}{where}"
    except RecursionError:
        return None, "YAML nesting is too deep to parse"
    except (YAMLError, ValueError, TypeError, OverflowError) as err:
        return None, str(err).splitlines()[0] if str(err) else type(err).__name__
    if not isinstance(data, dict) or len(data) != 1:
        return None, "block is not a single top-level key"
    if expanded_size(data) is None:
        return None, "YAML aliases expand too far (alias bomb or recursive alias)"
    return next(iter(data.values())), None


@dataclass(eq=False)
class KeyInfo:
    """One top-level key of a master config at one side: where it is, its text and its value."""

    key: str
    path: str
    line: int  # 1-based line of `key:`
    end_line: int  # last line of the block that is not blank or a comment
    text: str  # raw block text, from the key line through end_line
    _file: MasterFile | None = field(default=None, repr=False)
    _parsed: tuple[Any, str | None] | None = field(default=None, repr=False)

    def _parse(self) -> tuple[Any, str | None]:
        if self._parsed is None and self._file is not None and len(self._file.keys) > WHOLE_FILE_KEYS:
            # Thousands of keys (a generated or hostile file): one fast whole-file load beats
            # thousands of block loads.
            whole = self._file.full_values()
            if whole is not None and self.key in whole:
                self._parsed = (whole[self.key], None)
        if self._parsed is None:
            value, error = parse_block(self.text)
            if error is not None and self._file is not None:
                # Aliases may refer to anchors in other blocks: the whole file decides.
                whole = self._file.full_values()
                if whole is not None and self.key in whole:
                    value, error = whole[self.key], None
            self._parsed = (value, error)
        return self._parsed

    @property
    def value(self) -> Any:
        """The key's value as plain Python (dict, list, scalars), or None when it does not parse."""
        return self._parse()[0]

    @property
    def error(self) -> str | None:
        """Why the block did not parse, or None."""
        return self._parse()[1]

    def get(self, name: str, default: Any = None) -> Any:
        """A top-level field of the value (`image`, `runner`, …), or `default`."""
        value = self.value
        return value.get(name, default) if isinstance(value, dict) else default

    def line_of(self, name: str) -> int:
        """1-based line of a direct child field `name:` of this key; the key's line if absent."""
        lines = self.text.split("\n")
        indent = None
        for i, raw in enumerate(lines[1:], start=1):
            stripped = raw.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                continue
            width = len(raw) - len(stripped)
            if indent is None:
                indent = width
            if width == indent and re.match(rf"""["']?{re.escape(name)}["']?\s*:(?:\s|$)""", stripped):
                return self.line + i
        return self.line


@dataclass(eq=False)
class MasterFile:
    """One master config at one side: its keys in file order, or why they could not be read."""

    path: str
    side: str
    keys: dict[str, KeyInfo]
    error: str | None = None
    duplicates: tuple[str, ...] = ()
    _raw: bytes | None = field(default=None, repr=False)
    _full: dict | None = field(default=None, repr=False)
    _full_done: bool = field(default=False, repr=False)

    def full_values(self) -> dict | None:
        """Whole-file safe parse (slow; only a fallback), top-level mapping or None."""
        if not self._full_done:
            self._full_done = True
            data, error = load_values(self.path, self._raw)
            if error is None and isinstance(data, dict):
                self._full = plain(data)
        return self._full


def _scan(path: str, side: str, raw: bytes | None) -> MasterFile:
    if raw is None:
        return MasterFile(path, side, {}, error="file content is not available")
    if len(raw) > MAX_YAML_BYTES:
        return MasterFile(
            path, side, {}, error=f"file is {len(raw):,} bytes; files over {MAX_YAML_BYTES:,} are not read"
        )
    if b"\0" in raw:
        return MasterFile(path, side, {}, error="file is binary (contains NUL bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return MasterFile(path, side, {}, error=f"not valid UTF-8 (byte {err.start})")
    lines = text.removeprefix("\ufeff").split("\n")
    starts: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        first = line[:1]
        if first in ("", " ", "#", "\t", "\r"):
            continue
        if line.rstrip() == "---" and not starts:
            continue
        m = _KEY_LINE.match(line)
        if m is None:
            return _full_scan(path, side, raw)
        key = (
            m.group("dq")
            if m.group("dq") is not None
            else m.group("sq")
            if m.group("sq") is not None
            else m.group("plain")
        )
        starts.append((i, key))
    keys: dict[str, KeyInfo] = {}
    dups: list[str] = []
    mf = MasterFile(path, side, keys, _raw=raw)
    for n, (i, key) in enumerate(starts):
        stop = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        end = stop - 1
        while end > i and (not lines[end].strip() or lines[end].lstrip().startswith("#")):
            end -= 1
        if key in keys:
            dups.append(key)
        keys[key] = KeyInfo(key, path, i + 1, end + 1, "\n".join(lines[i:end + 1]) + "\n", _file=mf)
    mf.duplicates = tuple(dups)
    return mf


def _full_scan(path: str, side: str, raw: bytes) -> MasterFile:
    """Exact (slow) path for files whose top level is not plain `key:` lines."""
    doc = parse_yaml(path, raw)
    if not doc.ok:
        return MasterFile(path, side, {}, error=f"YAML does not parse: {doc.error.message}")
    if not isinstance(doc.data, dict):
        return MasterFile(path, side, {}, error="top level is not a mapping of config keys")
    keys: dict[str, KeyInfo] = {}
    lines = doc.text.split("\n")
    for key, value in doc.data.items():
        line = doc.line_of(key) or 1
        text = lines[line - 1] + "\n" if 0 < line <= len(lines) else ""
        keys[str(key)] = KeyInfo(str(key), path, line, line, text, _parsed=(plain(value), None))
    return MasterFile(path, side, keys)


def master_files(ctx: ReviewContext, side: Side = "head") -> list[MasterFile]:
    """Every master config known at `side` (changed files plus context), sorted by path."""

    def compute() -> list[MasterFile]:
        cs = ctx.changeset
        raws: dict[str, bytes | None] = {}
        changed = set()
        for f in cs.files:
            changed.update((f.path, f.base_path))
            if side == "head" and f.status != "removed" and ctx.kind(f.path) == "master_configs":
                raws[f.path] = f.head
            if side == "base" and f.status != "added" and ctx.kind(f.base_path) == "master_configs":
                raws[f.base_path] = f.base
        extra = dict(cs.context) if side == "head" else {**cs.context, **cs.base_context}
        for p, raw in extra.items():
            if p not in changed and p not in raws and ctx.kind(p) == "master_configs":
                raws[p] = raw
        return [_scan(p, side, raws[p]) for p in sorted(raws)]

    return ctx.memo(("masterconfig", "files", side), compute)


def master_keys(ctx: ReviewContext, side: Side = "head") -> dict[str, KeyInfo]:
    """Every config key known at `side` → its KeyInfo (the first file, by path, wins a duplicate)."""

    def compute() -> dict[str, KeyInfo]:
        out: dict[str, KeyInfo] = {}
        for mf in master_files(ctx, side):
            for k, info in mf.keys.items():
                out.setdefault(k, info)
        return out

    return ctx.memo(("masterconfig", "keys", side), compute)


def key_info(ctx: ReviewContext, key: str, side: Side = "head") -> KeyInfo | None:
    """The KeyInfo of one config key at `side`, or None."""
    return master_keys(ctx, side).get(key)


@dataclass(frozen=True)
class ChangedKey:
    """A config key the PR added, changed (value differs) or removed."""

    key: str
    status: Literal["added", "changed", "removed"]
    head: KeyInfo | None
    base: KeyInfo | None

    @property
    def path(self) -> str:
        return (self.head or self.base).path  # type: ignore[union-attr]

    @property
    def line(self) -> int:
        """Head line of the key (base line for a removed key)."""
        return (self.head or self.base).line  # type: ignore[union-attr]


def changed_keys(ctx: ReviewContext) -> list[ChangedKey]:
    """Keys added, changed or removed across the changed master configs, in head file/line order.

    Only files the PR changes are compared (context files are identical at both sides). A key
    that moved between master files is compared by value, not reported twice. Comment and
    formatting edits are not changes: blocks whose text differs are parsed and compared by value.
    """

    def compute() -> list[ChangedKey]:
        touched = set()
        for f in ctx.changeset.files:
            touched.update((f.path, f.base_path))
        head = {k: v for mf in master_files(ctx, "head") if mf.path in touched for k, v in mf.keys.items()}
        base = {k: v for mf in master_files(ctx, "base") if mf.path in touched for k, v in mf.keys.items()}
        # A key may live in an unchanged file on one side (moved out of / into a context file).
        all_head, all_base = master_keys(ctx, "head"), master_keys(ctx, "base")
        out: list[ChangedKey] = []
        for k, h in head.items():
            b = base.get(k) or all_base.get(k)
            if b is None:
                out.append(ChangedKey(k, "added", h, None))
            elif b.text != h.text and (h.error is not None or b.error is not None or h.value != b.value):
                out.append(ChangedKey(k, "changed", h, b))
        for k, b in base.items():
            if k not in head and k not in all_head:
                out.append(ChangedKey(k, "removed", None, b))
        out.sort(key=lambda c: (c.status == "removed", c.path, c.line))
        return out

    return ctx.memo(("masterconfig", "changed"), compute)


def unreadable_files(ctx: ReviewContext, side: Side = "head") -> list[MasterFile]:
    """Master configs at `side` whose keys could not be read (missing content, not YAML, …)."""
    return [mf for mf in master_files(ctx, side) if mf.error is not None]


# --- Lookups other rules share -------------------------------------------------------------


def key_pattern(item: str) -> re.Pattern[str]:
    """The changelog's key matcher: `*` matches any run of characters; `?` is a literal."""
    return re.compile(re.escape(item).replace(r"\*", ".*"))


def match_keys(item: str, keys: Iterable[str]) -> list[str]:
    """Config keys a changelog `config-keys` item selects (exact key, or a `*` pattern)."""
    if "*" not in item:
        return [item] if item in set(keys) else []
    pattern = key_pattern(item)
    return [k for k in keys if pattern.fullmatch(k)]


def close_keys(item: str, keys: Iterable[str], n: int = 3) -> list[str]:
    """The existing keys closest to a misspelt one (difflib ratio ≥ 0.6), best first."""
    return difflib.get_close_matches(item, list(keys), n=n, cutoff=0.6)


def dram_utilization(value: Any) -> float | None:
    """A key's `dram-utilization` (fraction of host DRAM for KV offload), or None when absent/bad."""
    if not isinstance(value, dict):
        return None
    du = value.get("dram-utilization")
    if isinstance(du, bool) or not isinstance(du, (int, float)):
        return None
    return float(du)


def recipe_refs(value: Any) -> list[str]:
    """Recipe paths a master row references, best effort, in order, without duplicates.

    Older rows: `CONFIG_FILE=recipes/<path>[:<variant>]` in `additional-settings` (returned as
    written, variant included; the launcher maps `recipes/X` to the srt-slurm recipe tree).
    Newer rows: `srt-recipe` / `eval-srt-recipe`, joined to the nearest enclosing
    `srt-recipe-dir` when one is set at the same or an outer level.
    """
    out: list[str] = []

    def add(ref: str) -> None:
        ref = ref.strip().strip("\"'")
        if ref and ref not in out:
            out.append(ref)

    def walk(node: Any, recipe_dir: str | None) -> None:
        if isinstance(node, dict):
            d = node.get(RECIPE_DIR_FIELD)
            here = d.strip().rstrip("/") if isinstance(d, str) and d.strip() else recipe_dir
            for k, v in node.items():
                if k in RECIPE_FIELDS:
                    for name in [v] if isinstance(v, str) else v if isinstance(v, list) else []:
                        if isinstance(name, str) and name.strip():
                            add(f"{here}/{name.strip().lstrip('/')}" if here else name)
                elif isinstance(v, str):
                    for m in _CONFIG_FILE.finditer(v):
                        add(m.group(1))
                else:
                    walk(v, here)
        elif isinstance(node, list):
            for v in node:
                if isinstance(v, str):
                    for m in _CONFIG_FILE.finditer(v):
                        add(m.group(1))
                else:
                    walk(v, recipe_dir)

    walk(value, None)
    return out


def scenario_entries(value: Any) -> Iterator[tuple[str, dict, dict]]:
    """(scenario name, scenario block, search-space point) for every point of a master row."""
    if not isinstance(value, dict) or not isinstance(value.get("scenarios"), dict):
        return
    for name, blocks in value["scenarios"].items():
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            for point in block.get("search-space") or []:
                if isinstance(point, dict):
                    yield str(name), block, point


@dataclass(frozen=True)
class RowRemoval:
    """A key whose head value is its base value minus whole scenarios or search-space rows."""

    base_rows: int
    head_rows: int
    base_scenarios: int
    head_scenarios: int


_SCENARIO_LISTS = ("scenarios", "seq-len-configs")


def _rows(value: Any) -> tuple[int, int]:
    """(search-space rows, scenario blocks) of a key's value, in either layout."""
    blocks: list = []
    sc = value.get("scenarios") if isinstance(value, dict) else None
    if isinstance(sc, dict):
        blocks = [b for v in sc.values() if isinstance(v, list) for b in v]
    elif isinstance(value, dict) and isinstance(value.get("seq-len-configs"), list):
        blocks = value["seq-len-configs"]
    rows = sum(
        len(b["search-space"]) for b in blocks if isinstance(b, dict) and isinstance(b.get("search-space"), list)
    )
    return rows, len(blocks)


def _subsequence(base: list, head: list, keep) -> bool:
    """`head` is `base` with items deleted (order kept), each kept item `keep(base_item, head_item)`."""
    i = 0
    for h in head:
        while i < len(base) and not keep(base[i], h):
            i += 1
        if i == len(base):
            return False
        i += 1
    return True


def _block_shrinks(b: Any, h: Any) -> bool:
    """A scenario block (`isl`/`osl`/… and `search-space`) that lost rows and changed nothing else."""
    if b == h:
        return True
    if not (isinstance(b, dict) and isinstance(h, dict)) or set(b) != set(h):
        return False
    if any(b[k] != h[k] for k in b if k != "search-space"):
        return False
    bs, hs = b.get("search-space"), h.get("search-space")
    return isinstance(bs, list) and isinstance(hs, list) and _subsequence(bs, hs, lambda x, y: x == y)


def only_removes_rows(base: Any, head: Any) -> RowRemoval | None:
    """How a key changed when its head value is its base value with whole scenario blocks (or
    scenario types) or search-space rows deleted and nothing else changed; else None. Such a PR
    removes sweep jobs and adds none: there is nothing new to benchmark."""
    if base == head or not (isinstance(base, dict) and isinstance(head, dict)) or set(base) != set(head):
        return None
    if any(base[k] != head[k] for k in base if k not in _SCENARIO_LISTS):
        return None
    for k in _SCENARIO_LISTS:
        b, h = base.get(k), head.get(k)
        if b == h:
            continue
        if k == "scenarios" and isinstance(b, dict) and isinstance(h, dict):
            if not set(h) <= set(b) or not all(
                    isinstance(b[t], list) and isinstance(h[t], list) and _subsequence(b[t], h[t], _block_shrinks)
                    for t in h):
                return None
        elif not (isinstance(b, list) and isinstance(h, list) and _subsequence(b, h, _block_shrinks)):
            return None
    (br, bsc), (hr, hsc) = _rows(base), _rows(head)
    return RowRemoval(br, hr, bsc, hsc)


def touched_rows(ctx: ReviewContext) -> Iterator[KeyInfo | Skipped]:
    """Head KeyInfo of every key the PR adds or changes, as a dict value; Skipped for the rest.

    A changed master config that cannot be read, or a key whose block does not parse (the
    yaml-invalid rule reports why), becomes a Skipped naming it, so no check is dropped silently.
    """
    touched = {p for f in ctx.changeset.files for p in (f.path, f.base_path)}
    for mf in master_files(ctx, "head"):
        if mf.error is not None and mf.path in touched:
            yield Skipped(f"{mf.path} was not checked: {mf.error}", path=mf.path)
    unreadable: dict[tuple[str, str], list[str]] = {}  # (path, why) -> keys, said once per file
    for c in changed_keys(ctx):
        if c.head is None:
            continue
        if not isinstance(c.head.value, dict):
            why = c.head.error or "its value is not a mapping"
            unreadable.setdefault((c.head.path, why), []).append(c.key)
            continue
        yield c.head
    for (path, why), keys in unreadable.items():
        names = ", ".join(f"`{k}`" for k in keys[:3]) + (f" and {len(keys) - 3:,} more" if len(keys) > 3 else "")
        yield Skipped(f"config key{'s' if len(keys) > 1 else ''} {names} {'were' if len(keys) > 1 else 'was'} "
                      f"not checked: {why}", path=path)


# --- Container images ------------------------------------------------------------------------

_COMPONENT = re.compile(r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*")
_TAG = re.compile(r"[\w][\w.-]{0,127}")
_DIGEST = re.compile(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}")
_HOST = re.compile(
    r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::\d+)?"
)
DOCKER_HUB = "docker.io"
# Images that are files or paths on one machine, and the registry hosts anyone can pull from
# (master-image-not-public reports the rest; other image rules leave such images to it).
LOCAL_IMAGE_SUFFIXES = (".sqsh", ".squashfs", ".sif", ".tar", ".tar.gz")
LOCAL_IMAGE_PREFIXES = ("/", ".", "~", "file:", "\\")
PUBLIC_REGISTRIES = ("docker.io", "nvcr.io", "ghcr.io", "quay.io", "public.ecr.aws")


@dataclass(frozen=True)
class ImageRef:
    """A parsed container image reference: `[host/]repo[:tag][@digest]`."""

    host: str  # registry host; "docker.io" when the reference names none
    repository: str  # path inside the registry (`library/ubuntu` style paths are kept as written)
    tag: str | None
    digest: str | None


def parse_image(image: str) -> ImageRef | None:
    """Parse an image reference (enroot's `host#repo` form too), or None when it is not one."""
    if not image or image != image.strip() or any(c.isspace() for c in image):
        return None
    ref = image
    head, sep, rest = ref.partition("#")
    if sep:  # enroot writes `nvcr.io#nvidia/x:tag`
        if "/" in head or not rest:
            return None
        ref = f"{head}/{rest}"
    digest = None
    if "@" in ref:
        ref, digest = ref.split("@", 1)
        if not _DIGEST.fullmatch(digest):
            return None
    tag = None
    last_slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > last_slash:
        ref, tag = ref[:colon], ref[colon + 1:]
        if not _TAG.fullmatch(tag):
            return None
    parts = ref.split("/")
    host = DOCKER_HUB
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        host = parts.pop(0)
        if not _HOST.fullmatch(host):
            return None
    if not parts or not all(_COMPONENT.fullmatch(p) for p in parts):
        return None
    return ImageRef(host.lower(), "/".join(parts), tag, digest)
