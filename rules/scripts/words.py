"""Words of the shell interpreter: quoting, parameter expansion, field splitting.

`Words` is the part of `rules.scripts.interpret.Interpreter` that turns a word of the parse tree
into its value: `_string` (no field splitting: assignments, test operands, `case` values),
`_pattern` (a glob, quoted parts literal), `_words` / `_arg_words` (the fields of a command's
words). A word is first a list of segments (`Seg`: literal text or an expansion's value, with
where it came from), then joined or split into fields (`Arg`s).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from rules.scripts.parse import Node, line_of, text_of
from rules.scripts.patterns import strip_match, substitute_match
from rules.scripts.values import Arg, Unknown, Var, arg_of

_IFS = re.compile(r"[ \t\n]+")


@dataclass
class Seg:
    """A piece of a word: literal text or an expansion's value (None when unknown), and its origin."""

    text: str | None  # None: unknown
    quoted: bool
    why: str | None = None
    shape: str = ""
    path: str = ""
    line: int = 0
    brk: bool = False  # starts a new field (array element boundary)


class _Ref(NamedTuple):
    """A parameter `${…}` names, looked up, with how the expansion is written."""

    name: str
    value: str | Unknown | tuple[Arg, ...]
    var: Var | None
    quoted: bool
    shape: str
    path: str
    line: int


class Words:
    """Expansion of words (a mixin of the interpreter, which holds the state it reads)."""

    positional: list[Arg]
    arg0: str | None
    source_stack: list[str]
    fn_stack: list[str]

    if TYPE_CHECKING:
        def _tick(self) -> None: ...
        def _read(self, name: str) -> Var | None: ...
        def _set(self, name: str, var: Var) -> None: ...
        def _substitution(self, node: Node, path: str) -> str | Unknown: ...
        def _arith(self, e: Node, path: str) -> int | Unknown: ...

    def _string(self, node: Node | None, path: str) -> str | Unknown:
        """A word's value without field splitting (assignments, test operands, case values)."""
        if node is None:
            return ""
        segs = self._segs(node, path, quoted=True)
        out = []
        for s in segs:
            if s.text is None:
                return Unknown(s.why or "unknown")
            out.append(s.text)
        return " ".join(out) if any(s.brk for s in segs) else "".join(out)

    def _pattern(self, node: Node, path: str) -> str | Unknown:
        """A glob pattern: quoted parts match literally."""
        segs = self._segs(node, path, quoted=False)
        out = []
        for s in segs:
            if s.text is None:
                return Unknown(s.why or "unknown")
            out.append(re.sub(r"([*?\[\\])", r"\\\1", s.text) if s.quoted else s.text)
        return "".join(out)

    def _words(self, node: Node, path: str) -> list[Arg]:
        """The fields a word expands to (word splitting applied to unquoted expansions)."""
        return self._fields(self._segs(node, path, quoted=False), path, line_of(node))

    def _arg_words(self, nodes: list[Node], path: str) -> list[Arg]:
        """Arguments of a command. The grammar sometimes splits one word in two (`--m=$A:$B,$C` parses
        as `…:$` + `B,$C`): nodes with no gap between them are one word again."""
        out: list[Arg] = []
        i = 0
        while i < len(nodes):
            group = [nodes[i]]
            while i + 1 < len(nodes) and nodes[i + 1].start_byte == nodes[i].end_byte:
                i += 1
                group.append(nodes[i])
            i += 1
            if len(group) == 1:
                out.extend(self._words(group[0], path))
                continue
            segs: list[Seg] = []
            for n in group:
                more = self._segs(n, path, quoted=False)
                if segs and segs[-1].text is not None and segs[-1].text.endswith("$") and not segs[-1].path \
                        and more and more[0].text is not None and not more[0].path:
                    m = re.match(r"[A-Za-z_]\w*", more[0].text)
                    if m:
                        segs[-1] = replace(segs[-1], text=segs[-1].text[:-1], shape=segs[-1].text[:-1])
                        value, var = self._lookup(m.group(0), path, line_of(n))
                        segs.extend(self._value_segs(value, var, False, "$" + m.group(0), path, line_of(n), m.group(0)))
                        rest = more[0].text[m.end():]
                        more = ([replace(more[0], text=rest, shape=rest)] if rest else []) + more[1:]
                segs.extend(more)
            out.extend(self._fields(segs, path, line_of(group[0])))
        return out

    def _fields(self, segs: list[Seg], path: str, line: int) -> list[Arg]:
        fields: list[list[Seg]] = [[]]
        for s in segs:
            if s.brk and fields[-1]:
                fields.append([])
            if s.text is None or s.quoted or not s.path:
                fields[-1].append(s)
                continue
            # An unquoted expansion's value splits at blanks.
            parts = _IFS.split(s.text)
            for i, p in enumerate(parts):
                if i > 0 and fields[-1]:
                    fields.append([])
                if p:
                    fields[-1].append(replace(s, text=p, shape=p))
        out = []
        for f in fields:
            if not f:
                continue
            if all(s.text == "" and not s.quoted for s in f):
                continue
            known = all(s.text is not None for s in f)
            origins = {(s.path, s.line) for s in f if s.path}
            p, ln = (next(iter(origins)) if len(origins) == 1 and all(s.path for s in f) else (path, line))
            if known:
                text = "".join(s.text for s in f)  # type: ignore[misc]
                out.append(Arg(text, p, ln, text))
            else:
                why = next((s.why for s in f if s.text is None), None)
                out.append(Arg(None, p, ln, "".join(s.text if s.text is not None else s.shape for s in f), why))
        return out

    def _segs(self, node: Node, path: str, quoted: bool) -> list[Seg]:  # noqa: C901 (one branch per word node type)
        self._tick()
        t = node.type
        if t in ("word", "number", "extglob_pattern", "regex", "special_variable_name", "variable_name",
                 "test_operator"):
            raw = text_of(node)
            if t == "word" and ("\\" in raw):
                raw = re.sub(r"\\(.)", r"\1", raw.replace("\\\n", ""))
            return [Seg(raw, quoted, shape=raw)]
        if t == "raw_string":
            return [Seg(text_of(node)[1:-1], True, shape=text_of(node))]
        if t == "ansi_c_string":
            body = text_of(node)[2:-1]
            body = re.sub(r"\\([nt'\"\\])", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)
            return [Seg(body, True, shape=text_of(node))]
        if t in ("string", "translated_string"):
            return self._gapped(node, path, True, strip=1 if t == "string" else 2)
        if t == "concatenation":
            return self._gapped(node, path, quoted, strip=0)
        if t == "string_content":
            raw = re.sub(r'\\([$`"\\\n])', r"\1", text_of(node))
            return [Seg(raw, True, shape=raw)]
        if t == "simple_expansion":
            return self._simple(node, path, quoted)
        if t == "expansion":
            return self._expansion(node, path, quoted)
        if t == "command_substitution":
            v = self._substitution(node, path)
            return [Seg(v if isinstance(v, str) else None, quoted, why=v.why if isinstance(v, Unknown) else None,
                         shape=text_of(node), path=path, line=line_of(node))]
        if t == "arithmetic_expansion":
            expr = node.named_children[0] if node.named_children else None
            v = self._arith(expr, path) if expr is not None else Unknown("empty arithmetic")
            if isinstance(v, Unknown):
                return [Seg(None, quoted, why=v.why, shape=text_of(node))]
            return [Seg(str(v), quoted, shape=str(v), path=path, line=line_of(node))]
        if t == "process_substitution":
            return [Seg(None, quoted, why="process substitution", shape=text_of(node))]
        if t == "brace_expression":
            return [Seg(None, quoted, why="brace expansion", shape=text_of(node))]
        if t == "array":
            return [Seg(None, quoted, why="array literal", shape=text_of(node))]
        # Anything else (binary expressions inside tests, etc.): its literal text.
        raw = text_of(node)
        return [Seg(None, quoted, why=f"`{raw[:40]}` is not a value the interpreter reads", shape=raw)]

    def _gapped(self, node: Node, path: str, quoted: bool, strip: int) -> list[Seg]:
        """Children of a string or concatenation, with the text between them kept as literal."""
        out: list[Seg] = []
        src = node.text or b""
        base = node.start_byte
        pos = strip
        end = len(src) - (1 if strip else 0)
        for c in node.children:
            if not c.is_named:
                continue
            start = c.start_byte - base
            if start > pos:
                gap = src[pos:start].decode("utf-8", "replace")
                if quoted and strip:
                    gap = re.sub(r'\\([$`"\\\n])', r"\1", gap)
                elif not quoted:
                    gap = re.sub(r"\\(.)", r"\1", gap)
                out.append(Seg(gap, quoted, shape=gap))
            out.extend(self._segs(c, path, quoted))
            pos = c.end_byte - base
        if end > pos:
            gap = src[pos:end].decode("utf-8", "replace")
            if quoted and strip:
                gap = re.sub(r'\\([$`"\\\n])', r"\1", gap)
            out.append(Seg(gap, quoted, shape=gap))
        return out

    def _special(self, name: str, path: str, line: int) -> str | Unknown | tuple[Arg, ...]:
        if name == "0":
            return self.arg0 or path
        if name.isdigit():
            i = int(name) - 1
            return self.positional[i].text if i < len(self.positional) and self.positional[i].known else (
                Unknown(f"argument ${name}") if i < len(self.positional) else "")
        if name in ("@", "*"):
            return tuple(self.positional)
        if name == "#":
            return str(len(self.positional))
        return Unknown(f"`${name}` at run time")

    def _lookup(self, name: str, path: str, line: int, index: str | None = None):
        """(value, var): the value is str, Unknown, or a tuple of Args for `[@]`; var is None when unset."""
        if name == "BASH_SOURCE" or name == "FUNCNAME":
            src = self.source_stack[-1] if self.source_stack else path
            if name == "BASH_SOURCE":
                return (src, Var(src)) if index not in ("@", "*") else ((Arg(src, path, line, src),), Var(src))
            fn = self.fn_stack[-1] if self.fn_stack else "main"
            return fn, Var(fn)
        if name.isdigit() or name in ("@", "*", "#", "?", "$", "!", "-", "_"):
            v = self._special(name, path, line)
            return v, Var("")
        var = self._read(name)
        if var is None:
            return "", None
        if index is None:
            return var.scalar(), var
        if var.items is None:
            if index in ("@", "*"):
                sv = var.scalar()
                return ((arg_of(sv, var.path, var.line, None),) if sv != "" else ()), var
            if index == "0":
                return var.scalar(), var
            return "", var
        if index in ("@", "*"):
            return var.items, var
        if index.isdigit():
            i = int(index)
            if i < len(var.items):
                a = var.items[i]
                return (a.text if a.known else Unknown(a.why or "unknown element")), var
            return "", var
        return Unknown(f"`{name}[{index}]`"), var

    def _simple(self, node: Node, path: str, quoted: bool) -> list[Seg]:
        inner = node.named_children[0] if node.named_children else None
        if inner is None:
            return [Seg("$", quoted, shape="$")]
        name = text_of(inner)
        value, var = self._lookup(name, path, line_of(node))
        return self._value_segs(value, var, quoted, text_of(node), path, line_of(node), name)

    def _value_segs(self, value, var, quoted, shape, path, line, name) -> list[Seg]:
        vp, vl = (var.path, var.line) if var is not None and var.path else (path, line)
        if isinstance(value, tuple):
            segs = []
            for i, a in enumerate(value):
                segs.append(Seg(a.text, quoted, why=a.why, shape=a.shape, path=a.path or vp, line=a.line or vl,
                                 brk=i > 0))
            if not segs and quoted:
                return [Seg("", False, path=vp, line=vl)]
            return segs
        if isinstance(value, Unknown):
            return [Seg(None, quoted, why=value.why, shape=shape, path=vp, line=vl)]
        if var is None and name not in ("0",) and not name.isdigit():
            return [Seg(value, quoted, shape=value, path=path, line=line)]
        return [Seg(value, quoted, shape=value, path=vp, line=vl)]

    def _expansion(self, node: Node, path: str, quoted: bool) -> list[Seg]:
        line = line_of(node)
        shape = text_of(node)
        kids = [c for c in node.children if c.type not in ("${", "}")]
        # ${#X}, ${!X}
        prefix_op = None
        if kids and not kids[0].is_named and kids[0].type in ("#", "!"):
            prefix_op = kids[0].type
            kids = kids[1:]
        if not kids:
            return [Seg(None, quoted, why="empty expansion", shape=shape)]
        target = kids[0]
        index = None
        if target.type == "subscript":
            n = target.child_by_field_name("name")
            idx = target.child_by_field_name("index")
            name = text_of(n) if n is not None else ""
            if idx is not None:
                iv = self._string(idx, path) if idx.type not in ("word", "number") else text_of(idx)
                index = iv if isinstance(iv, str) else None
                if index is None:
                    return [Seg(None, quoted, why=f"index of `{name}` unknown", shape=shape)]
        elif target.type in ("variable_name", "special_variable_name"):
            name = text_of(target)
        else:
            return [Seg(None, quoted, why=f"`{shape}`", shape=shape)]
        if prefix_op == "!":
            return [Seg(None, quoted, why=f"indirect expansion `{shape}`", shape=shape)]
        value, var = self._lookup(name, path, line, index)
        if prefix_op == "#":
            if isinstance(value, tuple):
                if any(not a.known for a in value):
                    return [Seg(None, quoted, why=f"length of `{name}` unknown", shape=shape)]
                return [Seg(str(len(value)), quoted, shape=shape)]
            if isinstance(value, Unknown):
                return [Seg(None, quoted, why=value.why, shape=shape)]
            return [Seg(str(len(value)), quoted, shape=shape)]
        rest = kids[1:]
        if not rest:
            return self._value_segs(value, var, quoted, shape, path, line, name)
        op = rest[0].type if not rest[0].is_named else text_of(rest[0])
        ref = _Ref(name, value, var, quoted, shape, path, line)
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            return self._default_segs(ref, op, rest[1:])
        return self._operator_segs(ref, op, rest[1:])

    def _default_segs(self, ref: _Ref, op: str, operands: list[Node]) -> list[Seg]:
        """`${X:-d}` `${X-d}` `${X:=d}` `${X=d}` `${X:+a}` `${X+a}` `${X:?m}` `${X?m}`."""
        name, value, var, quoted, shape, path, line = ref
        unset = var is None and not (name.isdigit() or name in ("@", "*", "0", "BASH_SOURCE"))
        if name.isdigit():
            unset = int(name) > len(self.positional)
        empty = unset or value == "" or value == ()
        use_default = (empty if op.startswith(":") else unset)
        if op in (":+", "+"):
            if isinstance(value, Unknown) and op == ":+":
                return [Seg(None, quoted, why=value.why, shape=shape)]
            if use_default:
                return [Seg("", quoted, shape="")]
            return self._operand_segs(operands, path, quoted)
        if isinstance(value, Unknown) and op.startswith(":"):
            return [Seg(None, quoted, why=value.why, shape=shape, path=var.path if var else "",
                         line=var.line if var else 0)]
        if use_default:
            if op in (":?", "?"):
                return [Seg(None, quoted, why=f"`{name}` unset: `{shape}` stops the script", shape=shape)]
            segs = self._operand_segs(operands, path, quoted)
            if op in (":=", "="):
                joined_v = self._join(segs)
                self._set(name, Var(joined_v, path=path, line=line))
            return segs
        return self._value_segs(value, var, quoted, shape, path, line, name)

    def _operator_segs(self, ref: _Ref, op: str, operands: list[Node]) -> list[Seg]:
        """`${X#p}` `${X%p}` (and doubled), `${X/a/b}` (and `//`, `/#`, `/%`), `${X,,}` `${X^^}`, `${X:o:l}`."""
        name, value, var, quoted, shape, path, line = ref
        if isinstance(value, tuple):
            value = " ".join(a.text or "" for a in value) if all(a.known for a in value) else Unknown("array element")
        if isinstance(value, Unknown):
            return [Seg(None, quoted, why=value.why, shape=shape)]
        vp, vl = (var.path, var.line) if var is not None and var.path else (path, line)
        if op in ("#", "##", "%", "%%"):
            pat = self._pattern_of(operands, path)
            if isinstance(pat, Unknown):
                return [Seg(None, quoted, why=pat.why, shape=shape)]
            return [Seg(strip_match(value, pat, op), quoted, shape=shape, path=vp, line=vl)]
        if op in ("/", "//", "/#", "/%"):
            pat_nodes, repl_nodes, seen_sep = [], [], False
            for o in operands:
                if not o.is_named and o.type == "/":
                    seen_sep = True
                    continue
                (repl_nodes if seen_sep else pat_nodes).append(o)
            pat = self._pattern_of(pat_nodes, path)
            repl = self._join(self._operand_segs(repl_nodes, path, True)) if repl_nodes else ""
            if isinstance(pat, Unknown) or isinstance(repl, Unknown):
                return [Seg(None, quoted, why="substitution operand unknown", shape=shape)]
            return [Seg(substitute_match(value, pat, repl, op), quoted, shape=shape, path=vp, line=vl)]
        if op in (",,", ","):
            return [Seg(value.lower() if op == ",," else value[:1].lower() + value[1:], quoted, shape=shape,
                         path=vp, line=vl)]
        if op in ("^^", "^"):
            return [Seg(value.upper() if op == "^^" else value[:1].upper() + value[1:], quoted, shape=shape,
                         path=vp, line=vl)]
        if op == ":":
            nums = [o for o in operands if o.is_named]
            try:
                off = int(self._join(self._segs(nums[0], path, True))) if nums else 0
                ln = int(self._join(self._segs(nums[1], path, True))) if len(nums) > 1 else None
            except (ValueError, TypeError):
                return [Seg(None, quoted, why="substring bounds unknown", shape=shape)]
            s = value[off:] if ln is None else value[off:off + ln] if ln >= 0 else value[off:ln]
            return [Seg(s, quoted, shape=shape, path=vp, line=vl)]
        return [Seg(None, quoted, why=f"expansion operator `{op}`", shape=shape)]

    def _operand_segs(self, operands: list[Node], path: str, quoted: bool) -> list[Seg]:
        segs: list[Seg] = []
        for o in operands:
            if o.is_named:
                segs.extend(self._segs(o, path, quoted))
            elif o.type not in ("}",):
                segs.append(Seg(o.type, quoted, shape=o.type))
        return segs

    def _pattern_of(self, operands: list[Node], path: str) -> str | Unknown:
        out = []
        for o in operands:
            if not o.is_named:
                continue
            v = self._pattern(o, path)
            if isinstance(v, Unknown):
                return v
            out.append(v)
        return "".join(out)

    @staticmethod
    def _join(segs: list[Seg]) -> str | Unknown:
        out = []
        for s in segs:
            if s.text is None:
                return Unknown(s.why or "unknown")
            out.append(s.text)
        return "".join(out)
