"""Here-documents the shell interpreter records as files (data: nothing is ever written).

`Heredocs` is the part of `rules.scripts.interpret.Interpreter` that reads `cat > F <<EOF … EOF`
and `cat <<EOF >> F` into `Result.written` (a `WrittenFile` per target): the document as the
shell would write it, with each expansion the interpretation cannot resolve as a placeholder.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rules.scripts.parse import Node, line_of, text_of
from rules.scripts.values import PLACEHOLDER, Result, Unknown, WrittenFile

if TYPE_CHECKING:
    from rules.scripts.words import Seg


class Heredocs:
    """Here-document files (a mixin of the interpreter, which holds the state it reads)."""

    result: Result

    if TYPE_CHECKING:
        def _guard(self) -> str | None: ...
        def _string(self, node: Node | None, path: str) -> str | Unknown: ...
        def _segs(self, node: Node, path: str, quoted: bool) -> list[Seg]: ...
        @staticmethod
        def _join(segs: list[Seg]) -> str | Unknown: ...

    def _heredoc_file(self, node: Node, body: Node | None, path: str) -> None:
        """`cat > F <<EOF … EOF` / `cat <<EOF >> F`: record what F holds (data, never written).

        `A && cat > F <<EOF` parses with the redirects on the whole list: the write then depends
        on `A`, and counts as written under an unknown condition (so does an append to a file no
        here-document wrote before: its earlier content is not known)."""
        listed = False
        if body is not None and body.type == "list" and body.named_children:
            body, listed = body.named_children[-1], True
        if body is None or body.type != "command":
            return
        name = body.child_by_field_name("name")
        if name is None or text_of(name) != "cat" or any(
                c.is_named and c.type not in ("command_name",) and not c.type.endswith("_redirect")
                for c in body.children):
            return
        heredoc = next((c for c in node.named_children if c.type == "heredoc_redirect"), None)
        if heredoc is None:
            return
        redirects = [c for c in node.named_children if c.type == "file_redirect"]
        redirects += [c for c in heredoc.named_children if c.type == "file_redirect"]
        if len(redirects) != 1:
            return
        red = redirects[0]
        op = next((text_of(c) for c in red.children if not c.is_named), "")
        target_node = next((c for c in red.named_children), None)
        if op not in (">", ">>", ">|") or target_node is None:
            return
        target = self._string(target_node, path)
        body_node = next((c for c in heredoc.named_children if c.type == "heredoc_body"), None)
        start = next((c for c in heredoc.named_children if c.type == "heredoc_start"), None)
        if isinstance(target, Unknown) or body_node is None or start is None:
            return
        strip_tabs = any(not c.is_named and text_of(c) == "<<-" for c in heredoc.children)
        quoted = bool(re.search(r"[\'\"\\]", text_of(start)))
        old = self.result.written.get(target)
        first_ph = len(old.unknowns) if old is not None else 0  # placeholders stay unique across appends
        unknowns: dict[str, str] = {}
        raw = body_node.text or b""
        base = body_node.start_byte
        if quoted:
            text = raw.decode("utf-8", "replace")
        else:
            out, pos = [], 0
            for c in body_node.children:
                if c.type not in ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"):
                    continue
                out.append(_heredoc_literal(raw[pos:c.start_byte - base].decode("utf-8", "replace")))
                value = self._join(self._segs(c, path, quoted=True))
                if isinstance(value, Unknown):
                    ph = PLACEHOLDER.format(first_ph + len(unknowns))
                    unknowns[ph] = text_of(c)
                    value = ph
                out.append(value)
                pos = c.end_byte - base
            out.append(_heredoc_literal(raw[pos:].decode("utf-8", "replace")))
            text = "".join(out)
        if strip_tabs:
            text = "\n".join(ln.lstrip("\t") for ln in text.split("\n"))
        first = line_of(body_node)
        lines = tuple(first + i for i in range(text.count("\n") + (0 if text.endswith("\n") else 1)))
        guarded = self._guard() is not None or listed
        if op == ">>" and old is not None:
            self.result.written[target] = WrittenFile(target, old.text + text, old.lines + lines, path,
                                                      {**old.unknowns, **unknowns}, old.guarded or guarded)
        else:
            self.result.written[target] = WrittenFile(target, text, lines, path, unknowns, guarded or op == ">>")


def _heredoc_literal(text: str) -> str:
    """Literal text of an unquoted here-document: `\\$`, `\\``, `\\\\` lose their backslash, `\\⏎` joins lines."""
    return re.sub(r"\\([$`\\])", r"\1", text.replace("\\\n", ""))
