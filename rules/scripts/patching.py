"""What a PR's added shell lines do to the serving engine: patches, in-place edits, forked installs.

Read by engine-patched (F4) and waiver-incomplete. Everything here is text analysis of the lines
a PR adds to benchmark scripts, launchers and harness scripts; nothing is executed.

A *logical line* is a command with its `\\` continuations joined; it counts as added when any of
its physical lines is. Comment lines are skipped.
"""
from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rules.changeset import ChangeSet
from rules.policy import Statement, layout_roots, written_statement

# Python packages of the serving engines and the kernel libraries they run (pip names, import names).
ENGINE_PACKAGES = ("vllm", "sglang", "sgl-kernel", "sgl_kernel", "tensorrt_llm", "tensorrt-llm", "flashinfer",
                   "flashinfer-python", "flashinfer_python", "aiter", "amd-aiter", "atom", "triton", "triton_kernels",
                   "deep_gemm", "deep-gemm", "sgl-deep-gemm", "deepgemm")
# Where an image keeps the engine's installed sources.
_INSTALLED = re.compile(r"(?:site|dist)-packages|/sgl-workspace/|\bfind_spec\b|\bimportlib\.util\b")
_HEREDOC = re.compile(r"""<<-?\s*(['"]?)([A-Za-z_][\w]*)\1""")
_ASSIGN = re.compile(r"^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=(.*)$")
_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")


@dataclass(frozen=True)
class Logical:
    path: str
    line: int  # first physical line
    end: int
    text: str  # continuations joined with a space
    added: bool


def logical_lines(text: str, added: set[int] | None) -> list[Logical]:
    """The file's commands, continuations joined; `added` None means every line counts as added."""
    out: list[Logical] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start = i
        parts = []
        while True:
            raw = lines[i]
            cont = raw.rstrip().endswith("\\") and not raw.lstrip().startswith("#")
            parts.append(raw.rstrip()[:-1] if cont else raw)
            if not cont or i + 1 >= len(lines):
                break
            i += 1
        joined = " ".join(p.strip() for p in parts)
        span = range(start + 1, i + 2)
        if joined and not joined.startswith("#"):
            out.append(Logical("", start + 1, i + 1, joined, added is None or any(n in added for n in span)))
        i += 1
    return out


def assignments(text: str) -> dict[str, str]:
    """Every `NAME=value` of the file (the last one wins), values unquoted where simple."""
    out: dict[str, str] = {}
    for raw in text.split("\n"):
        m = _ASSIGN.match(raw)
        if m:
            out[m.group(1)] = m.group(2).strip().strip("'\"")
    return out


def expand(word: str, env: dict[str, str], depth: int = 3) -> str:
    """`word` with the file's own assignments substituted (a few levels; unknown names stay)."""
    for _ in range(depth):
        new = _VAR.sub(lambda m: env.get(m.group(1), m.group(0)), word)
        if new == word:
            break
        word = new
    return word


def _engine_dir(word: str, packages: Iterable[str]) -> str | None:
    """The engine package a path reaches into: an installed tree, a `find_spec`/`__file__` of an
    engine import, or a relative `<package>/…/*.py` path."""
    pk = "|".join(re.escape(p) for p in packages)
    if _INSTALLED.search(word):
        m = re.search(rf"(?:site|dist)-packages/({pk})(?:[/\s'\"]|$)", word)
        return m.group(1) if m else "the image's installed packages"
    m = re.search(rf"\bimport\s+({pk})\b", word) or re.search(rf"\b({pk})\.__(?:file|path)__", word)
    if m:
        return m.group(1)
    m = re.match(rf"^(?:\./)?({pk})/[\w./-]+\.(?:py|cu|cpp|h)$", word)
    return m.group(1) if m else None


def engine_target(word: str, env: dict[str, str], packages: Iterable[str]) -> str | None:
    return _engine_dir(expand(word, env), packages)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:
        return text.split()


def _commands(text: str) -> list[list[str]]:
    """Simple commands of a logical line, split at `;`, `&&`, `||`, `|` (not inside quotes, roughly)."""
    out, cur = [], []
    for w in _split(text):
        if w in (";", "&&", "||", "|", "&"):
            if cur:
                out.append(cur)
            cur = []
            continue
        tail = w.rstrip(";")
        cur.append(tail if tail else w)
        if w.endswith(";") and len(w) > 1:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


@dataclass(frozen=True)
class Patch:
    path: str
    line: int
    end: int
    what: str  # a short description: "`sed -i` over …"
    target: str


_PATCH_TOOL = re.compile(
    r"(?:^|[\s;&|(])(git\s+(?:apply|am)\b|patch\s+(?:-[A-Za-z]*p\s*\d|--strip|-i\b|<|-N\b|-R\b|-d\b|--directory))"
)
_PY_WRITE = re.compile(
    r"\.write_(?:text|bytes)\(|\.write\(|open\([^)]*['\"][wa]b?\+?['\"]|shutil\.(?:copy\w*|move)\(|os\.replace\("
)
# A bind mount into the container: `-v SRC:DST[:ro]`, `--volume`, `--container-mounts=A:B,C:D`.
_MOUNT = re.compile(r"(?:(?<![\w-])-v|--volume|--container-mounts?)[=\s]+(\S+)")
_PIP = re.compile(r"(?:^|[\s;&|(])(?:uv\s+)?(?:python3?\s+-m\s+)?pip3?\s+install\b")
_CLONE = re.compile(r"\bgit\s+clone\b[^\n]*?(https?://\S+|git@\S+)")


def _repo_name(url: str) -> str:
    return (
        posixpath.basename(url.rstrip("/").split("@")[0] if url.startswith("git+") else url.rstrip("/"))
        .removesuffix(".git")
        .lower()
    )


def _names_engine(text: str, packages: Iterable[str]) -> str | None:
    low = text.lower()
    for p in sorted(packages, key=len, reverse=True):
        if re.search(rf"(?<![\w-]){re.escape(p.lower())}(?![\w])", low):
            return p
    return None


def find_patches(path: str, text: str, added: set[int] | None, packages: Iterable[str]) -> list[Patch]:
    """The engine patches on the added lines of one shell file."""
    packages = tuple(packages)
    env = assignments(text)
    out: list[Patch] = []
    logical = logical_lines(text, added)
    lines = text.split("\n")
    heredoc_until = -1
    clones: list[tuple[int, str]] = []  # (line, repo name) of each `git clone`
    for lg in logical:
        if lg.line <= heredoc_until:
            continue
        for m in _CLONE.finditer(lg.text):
            clones.append((lg.line, _repo_name(m.group(1))))
        hd = _HEREDOC.search(lg.text)
        if hd:
            # The here-doc's body: up to its delimiter line.
            end = next((j for j in range(lg.end, len(lines)) if lines[j].strip() == hd.group(2)), len(lines) - 1)
            heredoc_until = end + 1
            body = "\n".join(lines[lg.end:end])
            body_added = added is None or any(n in added for n in range(lg.line, end + 2))
            head = lg.text[: hd.start()]
            if body_added and re.search(r"\bpython3?\b", head):
                target = _engine_dir(body, packages)
                if target and _PY_WRITE.search(body):
                    out.append(Patch(path, lg.line, end + 1, "a Python here-doc that writes into", target))
                    continue
            redirect = re.search(r">>?\s*(\S+)", head)
            if body_added and redirect:
                target = engine_target(redirect.group(1).strip("'\""), env, packages)
                if target:
                    out.append(Patch(path, lg.line, end + 1, "a here-doc written over", target))
                    continue
        if not lg.added:
            continue
        out.extend(_line_patches(path, lg, env, packages, clones))
    return out


def _line_patches(path: str, lg: Logical, env: dict[str, str], packages: tuple[str, ...],  # noqa: C901 (one branch per command that can patch a file: sed, python -c, cp, tee, pip)
                  clones: list[tuple[int, str]]) -> list[Patch]:
    found: list[Patch] = []

    def add(what: str, target: str) -> None:
        found.append(Patch(path, lg.line, lg.end, what, target))

    m = _PATCH_TOOL.search(lg.text)
    if m:
        target = _patched_tree(lg, env, packages, clones)
        if target:
            f = re.search(r"([\w./-]+\.(?:patch|diff))\b", expand(lg.text, env))
            named = f" (`{posixpath.basename(f.group(1))}`)" if f else ""
            add(f"`{' '.join(m.group(1).split()[:2])}`{named} applies a patch to", target)
        return found
    for mnt in _MOUNT.finditer(lg.text):
        for spec in mnt.group(1).strip("'\"").split(","):
            parts = expand(spec, env).split(":")
            dest = parts[1] if len(parts) >= 2 else ""
            t = _engine_dir(dest, packages) if dest.endswith(".py") or "-packages/" in dest else None
            if t:
                add("a container mount overlays", t)
                return found
    for words in _commands(lg.text):
        if not words:
            continue
        cmd = posixpath.basename(words[0])
        if cmd in ("sudo", "env") and len(words) > 1:
            words = words[1:]
            cmd = posixpath.basename(words[0])
        if cmd == "sed" and any(w.startswith("-i") or w == "--in-place" or re.fullmatch(r"-[a-zA-Z]*i\S*", w)
                                for w in words[1:]):
            for w in words[1:]:
                t = None if w.startswith("-") else engine_target(w, env, packages)
                if t:
                    add("`sed -i` edits", t)
                    break
        elif cmd in ("python", "python3") and "-c" in words:
            code = words[words.index("-c") + 1] if words.index("-c") + 1 < len(words) else ""
            t = _engine_dir(expand(code, env), packages)
            if t and _PY_WRITE.search(code):
                add("`python -c` writes into", t)
        elif cmd in ("cp", "mv", "install", "rsync", "ln") and len(words) >= 3:
            dest = [w for w in words[1:] if not w.startswith("-")]
            t = engine_target(dest[-1], env, packages) if len(dest) >= 2 else None
            if t:
                add(f"`{cmd}` overwrites", t)
        elif cmd == "tee":
            for w in words[1:]:
                t = None if w.startswith("-") else engine_target(w, env, packages)
                if t:
                    add("`tee` writes over", t)
                    break
    if not found:
        for r in re.finditer(r"(?<![<>&\d])>>?\s*([^\s;&|]+)", lg.text):
            t = engine_target(r.group(1).strip("'\""), env, packages)
            if t and not r.group(1).startswith("&"):
                add("a redirection writes over", t)
                break
    if not found and _PIP.search(lg.text):
        t = _fork_install(lg, env, packages, clones)
        if t:
            add("`pip install` puts", t)
    return found


def _patched_tree(lg: Logical, env: dict[str, str], packages: tuple[str, ...], clones) -> str | None:
    """The engine a `git apply` / `patch` changes, or None (a dry run, a checkout of the harness, or a
    tree the file does not say). The tree is the `-d`/`--directory` argument, else the checkout the
    file cloned last, else the patch file's name."""
    text = lg.text
    if re.search(r"--(?:check|stat|numstat|summary|dry-run)\b", text):
        return None
    d = re.search(r"(?:\s-d\s*|--directory[=\s])(\S+)", text)
    if d:
        return engine_target(d.group(1).strip("'\""), env, packages)
    before = [r for ln, r in clones if ln < lg.line]
    if before:
        repo = _names_engine(before[-1], packages)
        return f"a checkout of `{repo}`" if repo else None
    f = re.search(r"([\w${}./-]+\.(?:patch|diff))\b", text)
    name = _names_engine(posixpath.basename(expand(f.group(1), env)), packages) if f else None
    return f"the sources of `{name}`" if name else None


def _fork_install(lg: Logical, env: dict[str, str], packages: tuple[str, ...], clones) -> str | None:
    """What a `pip install` installs over the image that is not a released engine: a git URL, a wheel
    file or URL, an editable or local checkout of an engine. Released versions from the index are
    not forks (they are a different question: the pinned image's versions)."""
    words = _split(lg.text[_PIP.search(lg.text).start():])
    args = []
    for w in words[2:]:
        if w in (";", "&&", "||", "|"):
            break
        args.append(expand(w, env))
    editable = False
    for a in args:
        if a in ("-e", "--editable"):
            editable = True
            continue
        if a.startswith("-"):
            continue
        if a.startswith("git+") or re.match(r"^(?:https?://|git@).*\.git\b", a):
            name = _names_engine(_repo_name(a) + " " + a.split("#egg=")[-1], packages)
            if name:
                return f"a fork of `{name}` from a git URL ({a[:80]}) over the image"
        elif a.endswith(".whl"):
            name = _names_engine(posixpath.basename(a).split("-")[0], packages)
            if name:
                return f"a `{name}` wheel file ({posixpath.basename(a)[:80]}) over the image"
            if "*" in a and clones:
                repo = _names_engine(clones[-1][1], packages)
                if repo:
                    return f"a wheel built from a checkout of `{repo}` over the image"
        elif editable or a in (".", "./") or a.startswith(("./", "/", "../")):
            name = _names_engine(a.replace("/", " "), packages)
            if name and (editable or a.startswith("/")):
                return f"an {'editable ' if editable else ''}checkout of `{name}` ({a[:80]}) over the image"
            before = [r for ln, r in clones if ln < lg.line]
            repo = _names_engine(before[-1], packages) if before else None
            if repo:
                return f"an {'editable ' if editable else ''}checkout of `{repo}` ({a[:80]}) over the image"
        editable = False
    return None


# --- waivers ----------------------------------------------------------------------------------------

WAIVER_DIR = "docs/waiver"


def waiver_dirs(cs: ChangeSet) -> list[str]:
    """The waiver directory of every layout the PR touches."""
    roots = layout_roots(p for f in cs.files for p in (f.path, f.base_path))
    return [posixpath.join(r, WAIVER_DIR) if r else WAIVER_DIR for r in roots]


def pr_waivers(cs: ChangeSet) -> list[str]:
    """Waiver files this PR adds or edits for itself: `<dir>/<PR number>.md` (any `*.md` in a waiver
    directory when the review has no PR number, like a local range)."""
    dirs = waiver_dirs(cs)
    out = []
    for f in cs.files:
        if f.status == "removed" or posixpath.dirname(f.path) not in dirs or not f.path.endswith(".md"):
            continue
        stem = posixpath.basename(f.path)[:-3]
        if (cs.pr_number is not None and stem == str(cs.pr_number)) or (cs.pr_number is None and stem.isdigit()):
            out.append(f.path)
    return out


# --- the written rule at the base -----------------------------------------------------------------
# A sentence of the base's guidance that forbids engine patches ("does not patch the inference
# engine", "no patches to the engine", "… waiver … patch …").
_NO_PATCH = re.compile(
    r"(?i)(?:\b(?:not|never|no|forbid\w*|without)\b[^.]{0,80}\bpatch(?:es|ing)?\b[^.]{0,60}\b(?:engine|serving|image|site-packages)"
    r"|\bpatch(?:es|ing)?\b[^.]{0,120}\bwaiver\b|\bwaiver\b[^.]{0,120}\bpatch)"
)
# A sentence that forbids changing the model architecture (`--hf-overrides`, "architecture FLOPs").
_NO_ARCH = re.compile(
    r"(?i)(?:\barchitecture\b[^.]{0,40}\b(?:isn'?t|is\s+not|not\s+be|never\s+be|must\s+not\s+be)\s+changed"
    r"|\bbenchmark\s+hacks?\b|\b(?:won'?t|not|never)\s+accept\b[^.]{0,80}\bFLOPs\b"
    r"|\b(?:no|not|never|avoid)\b[^.]{0,60}--hf-overrides)"
)


def written_rule(cs: ChangeSet, which: str) -> Statement | None | Literal[False]:
    """The base's statement of the rule (`"patch"` F4, `"architecture"` F5); False when its guidance
    has none yet; None when the guidance was not read."""
    return written_statement(cs, _NO_PATCH if which == "patch" else _NO_ARCH)
