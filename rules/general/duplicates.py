"""Duplicate mapping keys of a YAML text, with the value of every occurrence (for yaml-invalid).

The repository's loaders disagree on duplicate keys: the changelog's strict validator
(`UniqueKeyLoader`, `utils/validate_perf_changelog.py`) rejects any, while the sweep generator's
`load_config_files` (`yaml.safe_load`, `utils/matrix_logic/validation.py`) and every other plain
`safe_load` keep the last value and drop the earlier ones without a word. So what a duplicate does
depends on the file and on whether the values differ; `duplicate_keys(text)` says, per duplicate,
where each occurrence is and what it holds.

The text is composed into nodes (ruamel's parser; composing does not reject duplicates, only
constructing does), so a duplicate never hides a later syntax error: that comes back as the error.
Values are compared as resolved nodes (tag and value, recursively), not as text: `a: 1` and
`a:   1  # same` are equal, `a: 1` and `a: "1"` are not.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

from rules.document import YamlError, nesting_error

MAX_NODES = 2_000_000  # bounded work on hostile input (an alias bomb composes to shared nodes)
_SEQ = "[]"  # a sequence item in a mapping's path (indices shift when items are inserted)


@dataclass(frozen=True)
class Duplicate:
    """One key written more than once in one mapping."""

    path: tuple[str, ...]  # keys from the root to the mapping; `[]` for a sequence item
    key: str
    lines: tuple[int, ...]  # 1-based line of each occurrence of the key, in order
    values: tuple[Any, ...]  # each occurrence's value as a comparable tree, in order
    texts: tuple[str, ...]  # each occurrence's value as written (one line, for messages)

    @property
    def line(self) -> int:
        """The last occurrence: the one a plain loader keeps."""
        return self.lines[-1]

    @property
    def drops_a_value(self) -> bool:
        """A plain loader keeps the last value; True when an earlier one differs from it."""
        return any(v != self.values[-1] for v in self.values[:-1])

    @property
    def identity(self) -> tuple:
        """What makes two duplicates the same one in base and head (not where they are)."""
        return self.path, self.key, self.values


def _compose(text: str):
    y = YAML(typ="safe", pure=False)
    return y.compose(text)


def duplicate_keys(text: str) -> tuple[list[Duplicate], YamlError | None]:
    """Every duplicate key of `text` in document order, or the syntax error that stops composing."""
    deep = nesting_error(text)
    if deep is not None:
        return [], deep
    try:
        root = _compose(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        problem = " ".join(str(p) for p in (err.context, err.problem) if p) or str(err)
        return [], YamlError(mark.line + 1 if mark is not None else None, problem.replace("\n", " "))
    except RecursionError:
        return [], YamlError(None, "YAML nesting is too deep to parse")
    except (YAMLError, ValueError, TypeError, OverflowError) as err:
        return [], YamlError(None, str(err).splitlines()[0] if str(err) else type(err).__name__)
    if root is None:
        return [], None
    out: list[Duplicate] = []
    budget = [MAX_NODES]
    memo: dict[int, Any] = {}

    def value(n) -> Any:
        got = memo.get(id(n))
        if got is not None:
            return got
        budget[0] -= 1
        if budget[0] < 0:
            raise OverflowError("too many YAML nodes")
        if isinstance(n, ScalarNode):
            v: Any = (n.tag, n.value)
        elif isinstance(n, SequenceNode):
            memo[id(n)] = ("seq", "…")  # a recursive alias compares as itself
            v = ("seq", tuple(value(c) for c in n.value))
        elif isinstance(n, MappingNode):
            memo[id(n)] = ("map", "…")
            v = ("map", tuple((value(k), value(c)) for k, c in n.value))
        else:
            v = (type(n).__name__,)
        memo[id(n)] = v
        return v

    def written(n) -> str:
        if isinstance(n, ScalarNode):
            return n.value
        raw = text[n.start_mark.index:n.end_mark.index]
        return " ".join(part.strip() for part in raw.split("\n") if part.strip() and not part.strip().startswith("#"))

    try:
        _walk(root, out, value, written)
    except (OverflowError, RecursionError):
        return [], YamlError(None, f"YAML has more than {MAX_NODES:,} nodes")
    out.sort(key=lambda d: d.line)
    return out, None


def _walk(root, out: list[Duplicate], value, written) -> None:
    seen: set[int] = set()
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            stack.extend((c, (*path, _SEQ)) for c in reversed(node.value))
        elif isinstance(node, MappingNode):
            groups: dict[Any, list[tuple[Any, Any]]] = {}
            for k, v in node.value:
                groups.setdefault(value(k), []).append((k, v))
            for _key, pairs in groups.items():
                if len(pairs) > 1:
                    name = pairs[0][0].value if isinstance(pairs[0][0], ScalarNode) else written(pairs[0][0])
                    out.append(Duplicate(path, str(name), tuple(k.start_mark.line + 1 for k, _ in pairs),
                                         tuple(value(v) for _, v in pairs), tuple(written(v) for _, v in pairs)))
            for k, v in reversed(node.value):
                name = k.value if isinstance(k, ScalarNode) else "?"
                stack.append((v, (*path, str(name))))


def new_duplicates(head: list[Duplicate], base: list[Duplicate]) -> list[Duplicate]:
    """Head duplicates the base does not already have (the same key, mapping and values)."""
    left = Counter(d.identity for d in base)
    out = []
    for d in head:
        if left[d.identity]:
            left[d.identity] -= 1
        else:
            out.append(d)
    return out
