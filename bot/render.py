"""Pure: the Markdown the bot writes, and the hidden markers that let it find its own writing.

Every user-visible string of the bot's comments lives here as a constant.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, unquote

from bot import __version__
from bot.present import Item, View
from rules.finding import Check, Finding
from rules.registry import by_code
from rules.runner import Report, doc_sections

MARKER_PREFIX = "recipe-review"
SUMMARY_MARKER = f"<!-- {MARKER_PREFIX}:summary -->"
WELCOME_MARKER = f"<!-- {MARKER_PREFIX}:welcome -->"
CONFIG_ERROR_MARKER = f"<!-- {MARKER_PREFIX}:config-error -->"
_FP_RE = re.compile(r"<!-- recipe-review:finding:(RR\d{3}):([0-9a-f]{16}) -->")
_KEY_RE = re.compile(r"<!-- recipe-review:problem:([0-9a-f]{16}) -->")
# `/ignore` state, carried by the bot's own reply: code, on|off, who, percent-encoded reason.
_IGNORE_RE = re.compile(r"<!-- recipe-review:ignore:(RR\d{3}):(on|off):([A-Za-z0-9-]*):([^ ]*) -->")
FIXED_MARKER = f"<!-- {MARKER_PREFIX}:fixed -->"
REPLACED_MARKER = f"<!-- {MARKER_PREFIX}:replaced -->"
# Replies that close a thread; a thread that has one is never answered again.
CLOSING_MARKERS = (f"{MARKER_PREFIX}:fixed", f"{MARKER_PREFIX}:replaced")
# How many subjects a group's headline names before "… and N more".
GROUP_LISTED = 8
BLOCKING_BADGE = "🔴 **BLOCKING**"
NIT_BADGE = "🟡 **nit (optional)**"
CHECK_RUN_NAME = "recipe-review"
# GitHub rejects bodies over 65,536 characters; keep a margin for the marker and footer.
MAX_BODY = 65_000
MAX_CHECK_SUMMARY = 65_000


def finding_marker(f: Finding) -> str:
    return f"<!-- {MARKER_PREFIX}:finding:{f.code}:{f.fingerprint} -->"


def parse_finding_marker(body: str | None) -> tuple[str, str] | None:
    """(code, fingerprint) of a bot inline comment, or None."""
    m = _FP_RE.search(body or "")
    return (m.group(1), m.group(2)) if m else None


def problem_marker(key: str | None) -> str:
    return f"<!-- {MARKER_PREFIX}:problem:{key} -->" if key else ""


def parse_problem_marker(body: str | None) -> str | None:
    """The problem key a bot inline comment carries, or None (comments written before keys existed)."""
    m = _KEY_RE.search(body or "")
    return m.group(1) if m else None


def message_of(body: str | None) -> str:
    """The message line of a bot inline comment (the third line: badge line, blank, message)."""
    lines = (body or "").splitlines()
    return lines[2] if len(lines) > 2 else ""


def ignore_marker(code: str, on: bool, by: str, reason: str = "") -> str:
    by = re.sub(r"[^A-Za-z0-9-]", "", by)
    return f"<!-- {MARKER_PREFIX}:ignore:{code}:{'on' if on else 'off'}:{by}:{quote(reason, safe='')} -->"


def parse_ignore_markers(body: str | None) -> list[tuple[str, bool, str, str]]:
    """Every (code, on, by, reason) an `/ignore` reply of the bot records, in order."""
    return [(m.group(1), m.group(2) == "on", m.group(3), unquote(m.group(4)))
            for m in _IGNORE_RE.finditer(body or "")]


def safe_text(text: str, limit: int = 300) -> str:
    """User text quoted in a bot comment: no HTML (so no marker can be forged), one line, bounded."""
    text = " ".join(text.split())[:limit]
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _badge(f: Finding) -> str:
    return BLOCKING_BADGE if f.blocking else NIT_BADGE


def _clip(text: str, limit: int) -> str:
    """`text` within `limit` UTF-8 bytes (GitHub counts bytes: `→` is three)."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    cut = raw[: limit - 60].decode("utf-8", "ignore")
    return cut.rstrip() + "\n\n… (truncated to fit GitHub's size limit)\n"


def _fix_line(fix: str, offer: bool) -> list[str]:
    tail = (f" Or {FIX_OFFER_MISPLACED}." if fix else f"{FIX_OFFER_MISPLACED}.") if offer else ""
    return ["", f"**Fix:** {fix}{tail}"] if fix or offer else []


def inline_comment(f: Finding, with_suggestion: bool, fix_offer: bool = False) -> str:
    """One review comment: badge, message, why, fix (+ suggestion block), evidence, marker.

    `fix_offer`: the repository has `/fix` on, so the misplaced-entry comment offers it.
    """
    parts = [f"{_badge(f)} · `{f.code}` {f.name}", "", f.message]
    if f.why:
        parts += ["", f"**Why it matters:** {f.why}"]
    parts += _fix_line(f.fix, fix_offer and f.code == "RR001")
    if with_suggestion and f.suggestion is not None:
        fence = "````" if "```" in f.suggestion else "```"
        body = f.suggestion if f.suggestion.endswith("\n") or not f.suggestion else f.suggestion + "\n"
        parts += ["", f"{fence}suggestion", body.rstrip("\n"), fence]
    if f.evidence:
        parts += ["", "<details><summary>Why this was flagged</summary>", ""]
        parts += [f"- {e}" for e in f.evidence]
        parts += ["", "</details>"]
    parts += ["", finding_marker(f), problem_marker(item_key(f))]
    return _clip("\n".join(parts), MAX_BODY)


def item_key(f: Finding) -> str | None:
    return Item((f,)).key


def _rule_fix(item: Item) -> str:
    """A group's fix: the members' own when they share one, else the rule's documented fix."""
    fixes = {f.fix for f in item.members}
    if len(fixes) == 1:
        return fixes.pop()
    rule = by_code(item.code)
    text = doc_sections(rule).get("Fix", "") if rule is not None else ""
    return " ".join(text.strip().split("\n\n")[0].split()) or item.first.fix


def group_headline(item: Item) -> str:
    """"38 changed keys are selected by no new entry: `a`, `b`, … and 30 more." """
    n = len(item.members)
    if n == 1:  # a group that shrank to one finding (kept so its thread is edited, not replaced)
        return item.first.message
    rule = by_code(item.code)
    plural = getattr(rule, "PLURAL", None)
    lead = f"{n} {plural}" if plural else f"{n} `{item.code}` {item.name} findings in this file"
    labels = item.labels()
    shown = ", ".join(labels[:GROUP_LISTED])
    more = len(labels) - GROUP_LISTED
    return f"{lead}: {shown}" + (f", … and {more} more" if more > 0 else "") + "."


def _one_line(text: str) -> str:
    return " ".join(text.split())


def group_comment(item: Item, fix_offer: bool = False) -> str:
    """One review comment for every finding of a rule in one file: headline, why, fix, the full list.

    No suggestion block: each member's suggestion replaces its own lines, which one comment cannot.
    """
    n = len(item.members)
    parts = [f"{_badge(item.first)} · `{item.code}` {item.name} · {n} in this file", "", group_headline(item)]
    if item.first.why:
        parts += ["", f"**Why it matters:** {item.first.why}"]
    parts += _fix_line(_rule_fix(item), fix_offer and item.code == "RR001")
    parts += ["", f"<details><summary>All {n}, by line</summary>", ""]
    parts += [f"- {_at(f)}: {_one_line(f.message)}" for f in item.members]
    parts += ["", "</details>", "", finding_marker_of(item), problem_marker(item.key)]
    return _clip("\n".join(parts), MAX_BODY)


def finding_marker_of(item: Item) -> str:
    return f"<!-- {MARKER_PREFIX}:finding:{item.code}:{item.fingerprint} -->"


def item_comment(item: Item, with_suggestion: bool, fix_offer: bool = False) -> str:
    return group_comment(item, fix_offer) if item.grouped else inline_comment(item.first, with_suggestion, fix_offer)


def _at(f: Finding) -> str:
    return f"line {f.line}" if f.line else "whole file"


def fixed_reply(sha: str) -> str:
    return f"✅ Fixed in `{sha[:7]}` — this finding no longer appears. {FIXED_MARKER}"


def replaced_reply(why: str) -> str:
    return f"↪️ {why} {REPLACED_MARKER}"


GROUPED_INSTEAD = "Now listed in one comment for this rule and file; this thread is closed as superseded, not fixed."
IGNORED_INSTEAD = "This rule's findings are ignored on this PR (`/ignore`); the summary comment lists them."
SAME_PROBLEM = "Another recipe-review comment shows this finding; this duplicate thread is closed."


def _where(f: Finding) -> str:
    if not f.path:
        return "(whole PR)"
    return f"`{f.path}:{f.line}`" if f.line else f"`{f.path}`"


def _item_where(it: Item) -> str:
    return f"`{it.path}` ({len(it.members)} places)" if it.grouped else _where(it.first)


def _item_what(it: Item) -> str:
    return group_headline(it) if it.grouped else it.first.message


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def counts_line(report: Report, view: View) -> str:
    passed = sum(1 for c in report.checks if c.status == "passed")
    line = (f"🔴 {len(view.blocking)} blocking · 🟡 {_plural(len(view.nits), 'nit')} · "
            f"✅ {_plural(passed, 'check')} passed")
    return line + (f" · ⚪ {len(view.ignored)} ignored" if view.ignored else "")


def _per_rule(view: View) -> list[str]:
    """Counts per rule, most first: the first thing a reader of a huge review needs."""
    rows: dict[str, list[Any]] = {}
    for it in view.items:
        r = rows.setdefault(it.code, [it, 0, set()])
        r[1] += len(it.members)
        r[2].add(it.path)
    out = ["", "### Findings by rule", "", "| | Rule | Findings | Files |", "|---|---|---|---|"]
    for it, n, paths in sorted(rows.values(), key=lambda r: (not r[0].blocking, -r[1], r[0].code)):
        out.append(f"| {'🔴' if it.blocking else '🟡'} | `{it.code}` {it.name} | {n} | {len(paths)} |")
    return out


def _ignored_section(view: View) -> list[str]:
    if not view.ignores:
        return []
    out = ["", "### Ignored on this PR", ""]
    for code, ig in sorted(view.ignores.items()):
        fs = [f for f in view.ignored if f.code == code]
        rule = by_code(code)
        name = fs[0].name if fs else (rule.NAME if rule is not None else "")
        what = (f"{_plural(len(fs), 'finding')} ({'🔴 blocking' if fs[0].blocking else '🟡 nit'}) not counted"
                if fs else "no finding on this head")
        why = f": {safe_text(ig.reason)}" if ig.reason else " (no reason given)"
        out.append(f"- ⚪ **`{code}` {name}** — {what}; ignored by @{ig.by}{why}. "
                   f"`/ignore {code} off` counts it again.")
        if fs:
            out += ["", "  <details><summary>The ignored findings</summary>", ""]
            out += [f"  - {_where(f)}: {_one_line(f.message)}" for f in fs]
            out += ["", "  </details>"]
    return out


def _in_base_section(found: list[Finding]) -> list[str]:
    """Problems on lines this PR does not touch: named, not counted against the PR."""
    if not found:
        return []
    out = ["", f"### Already in the base ({_plural(len(found), 'problem')}, not counted)", "",
           "<details><summary>On lines this PR does not touch</summary>", ""]
    out += [f"- {'🔴' if f.blocking else '🟡'} `{f.code}` {f.name} at {_where(f)}: {_one_line(f.message)}"
            for f in found]
    return out + ["", "</details>"]


def _checks_section(checks: list[Check]) -> list[str]:
    out = []
    passed = [c for c in checks if c.status == "passed"]
    other = [c for c in checks if c.status != "passed"]
    if passed:
        out += ["", "### Checks that passed", ""]
        out += [f"- ✅ **{c.name}**: {c.detail}" for c in passed]
    if other:
        out += ["", "### Not verified", ""]
        out += [f"- ⚪ **{c.name}** ({c.status}): {c.detail}" for c in other]
    return out


def report_markdown(report: Report, head_sha: str, view: View | None = None,
                    config_errors: Sequence[str] = (), notes: tuple[str, ...] = ()) -> str:
    """The body shared by the summary comment and the check run: counts per rule, items, checks.

    Items not visible as inline comments (`view.inline`) are written out in full here, so nothing
    is lost when a finding cannot sit on a diff line or is past the inline cap.
    """
    view = view or View.of(report.findings)
    lines = [f"## recipe-review · `{head_sha[:7]}`", "", counts_line(report, view)]
    for note in notes:
        lines += ["", note]
    if config_errors:
        lines += ["", "⚠️ `.github/recipe-review.yml` on the base branch is invalid; the defaults were used:", ""]
        lines += [f"- {e}" for e in config_errors]
    if view.items:
        lines += _per_rule(view)
        lines += ["", "### Findings", "", "| | Rule | Where | What |", "|---|---|---|---|"]
        for it in view.items:
            msg = _one_line(_item_what(it)).replace("|", "\\|")
            lines.append(f"| {'🔴' if it.blocking else '🟡'} | `{it.code}` {it.name} | {_item_where(it)} | {msg} |")
        if view.outside:
            lines += ["", "#### Not on a diff line (details here)", ""]
            for it in view.outside:
                badge = "🔴" if it.blocking else "🟡"
                if it.grouped:
                    lines.append(f"- {badge} **`{it.code}` {it.name}** in `{it.path}`: {group_headline(it)}")
                    if it.first.why:
                        lines.append(f"  - *Why it matters:* {it.first.why}")
                    lines.append(f"  - *Fix:* {_rule_fix(it)}")
                    lines += [f"  - {_at(f)}: {_one_line(f.message)}" for f in it.members]
                    continue
                f = it.first
                lines.append(f"- {badge} **`{f.code}` {f.name}** at {_where(f)}: {f.message}")
                if f.why:
                    lines.append(f"  - *Why it matters:* {f.why}")
                if f.fix:
                    lines.append(f"  - *Fix:* {f.fix}")
                for e in f.evidence:
                    lines.append(f"  - {e}")
    else:
        lines += ["", "No findings." if not view.ignored else "No findings counted."]
    lines += _ignored_section(view)
    lines += _in_base_section(report.in_base)
    lines += _checks_section(report.checks)
    return "\n".join(lines)


def summary_comment(report: Report, head_sha: str, view: View | None = None,
                    config_errors: Sequence[str] = (), fixable: frozenset[str] = frozenset()) -> str:
    """`fixable`: fingerprints of the findings `/fix` repairs (empty when the repository switched it off)."""
    offer = fix_offer_line(report, fixable) if fixable else None
    body = report_markdown(report, head_sha, view, config_errors, (offer,) if offer else ())
    footer = f"\n\n<sub>Edited in place on every push · recipe-review {__version__} · `/help` for commands</sub>"
    return _clip(body, MAX_BODY - len(footer) - len(SUMMARY_MARKER) - 2) + footer + "\n" + SUMMARY_MARKER


def review_body(report: Report, view: View) -> str:
    if not view.items:
        return "recipe-review found nothing to flag. The summary comment lists what was verified."
    extra = len(view.outside)
    tail = (f" {_plural(extra, 'more item')} in the summary comment (not on a diff line, or past the inline cap)."
            if extra else "")
    return f"{counts_line(report, view)}.{tail} Findings marked 🟡 are optional and need no follow-up push."


def check_run_output(report: Report, head_sha: str, view: View | None = None,
                     config_errors: Sequence[str] = ()) -> dict[str, str]:
    view = view or View.of(report.findings)
    blocking, nits = len(view.blocking), len(view.nits)
    title = (f"{_plural(blocking, 'blocking finding')}" if blocking else
             (f"No blocking findings ({_plural(nits, 'nit')})" if nits else "No findings"))
    if view.ignored:
        title += f", {len(view.ignored)} ignored"
    return {"title": title,
            "summary": _clip(report_markdown(report, head_sha, view, config_errors), MAX_CHECK_SUMMARY)}


WELCOME = f"""{WELCOME_MARKER}
👋 **recipe-review** checks every push to this PR and reports in three places: inline comments on the
exact lines (🔴 blocking, 🟡 optional nit), one summary comment that it keeps up to date, and the
`{CHECK_RUN_NAME}` check, which fails only while a blocking finding remains.

- **Changelog:** append your `perf-changelog.yaml` entry at the very end of the file and leave every
  existing byte alone, separators included. A sweep runs only for a PR that appends an entry.
- **Sweep labels:** add exactly one primary label — `full-sweep-fail-fast` (recommended),
  `full-sweep-enabled` or `non-canary-full-sweep-enabled`. The modifiers `all-evals`, `evals-only` and
  `agentx-fast` only count next to a primary label. The `sweep-gate` check says whether a sweep may start.
- **Commands:** comment `/review` to re-run the review, `/sweep fail-fast` to set labels, `/help` for the rest.

<details><summary>中文</summary>

👋 **recipe-review** 会检查本 PR 的每一次推送,并在三处给出结果:精确到行的行内评论(🔴 必须修复,🟡 可选建议)、
一条持续更新的汇总评论,以及 `{CHECK_RUN_NAME}` 检查——只要还有必须修复的问题,该检查就会失败。

- **变更日志:**请把 `perf-changelog.yaml` 条目追加到文件最末尾,不要改动任何已有字节(包括空行分隔符)。
  只有追加了条目的 PR 才会运行扫描。
- **扫描标签:**请只添加一个主标签——`full-sweep-fail-fast`(推荐)、`full-sweep-enabled` 或
  `non-canary-full-sweep-enabled`。修饰标签 `all-evals`、`evals-only` 和 `agentx-fast` 必须与主标签同时使用才有效。
  `sweep-gate` 检查会说明扫描能否开始。
- **命令:**评论 `/review` 重新审查,`/sweep fail-fast` 设置标签,`/help` 查看全部命令。

</details>
"""


def primary_replaced(added: str | None, removed: list[str]) -> str:
    names = ", ".join(f"`{r}`" for r in removed)
    return (f"🏷️ A sweep takes exactly one primary label. `{added}` was added last, so I removed {names}. "
            f"Re-add it and remove `{added}` if you meant the other mode.\n\n<!-- {MARKER_PREFIX}:labels -->")


# -- /fix ------------------------------------------------------------------------------------------

FIX_OFFER_MISPLACED = "comment `/fix` to move it"
FIX_TRAILER = "Recipe-review-fix"  # commit trailer naming the comment a fix commit answers
# Inside a reply the patch may take this much of GitHub's 65,536-character body limit.
MAX_PATCH_CHARS = 60_000


def fix_offer_line(report: Report, fixable: frozenset[str]) -> str | None:
    """The summary's one line offering `/fix`, or None when no finding has an automatic fix.

    `fixable` holds the fingerprints of the findings `/fix` repairs.
    """
    codes = [f.code for f in report.findings if f.fingerprint in fixable]
    if not codes:
        return None
    if "RR001" in codes:
        return (f"🔧 The changelog entry is not at the end of the file: {FIX_OFFER_MISPLACED} "
                f"(`/fix` also repairs the other {len(codes) - codes.count('RR001')} finding(s) with an automatic "
                "fix; `/fix changelog` touches only the changelog).") if len(codes) > codes.count("RR001") else \
            f"🔧 The changelog entry is not at the end of the file: {FIX_OFFER_MISPLACED}."
    return (f"🔧 {len(codes)} finding(s) have an automatic fix: comment `/fix` to push it as one commit "
            "(`/fix changelog` touches only the changelog).")


def fix_commit_message(fixed_summary: list[str], changes: dict[str, list[str]], requester: str, number: int,
                       comment_ref: str) -> str:
    codes = sorted({line.split()[0] for line in fixed_summary})
    subject = f"Apply recipe-review fixes ({', '.join(codes) or 'formatting'})"
    body = [subject, "", f"Computed by recipe-review for @{requester}'s `/fix` on #{number}:", ""]
    for path, lines in changes.items():
        body.append(f"{path}:")
        body += [f"- {c}" for c in lines]
    if fixed_summary:
        body += ["", "Resolves:"] + [f"- {s}" for s in fixed_summary]
    body += ["", f"{FIX_TRAILER}: {comment_ref}"]
    return "\n".join(body) + "\n"


def patch_block(diff: str, base_hint: str) -> str:
    """The patch as a collapsed ```diff block the author can `git apply`, or how to get it when too long."""
    n = diff.count("\n")
    if len(diff) > MAX_PATCH_CHARS:
        return (f"The patch ({n:,} lines) is too long for a comment; run "
                f"`recipe-review fix --base {base_hint}` in your checkout to apply the same fix.")
    fence = "````" if "```" in diff else "```"
    return (f"<details><summary>The patch ({n:,} lines): save it and run <code>git apply</code></summary>\n\n"
            f"{fence}diff\n{diff}{fence}\n\n</details>")


def fix_findings_list(findings: Sequence[Finding], limit: int = 10) -> str:
    lines = []
    for f in findings[:limit]:
        where = f"`{f.path}:{f.line}`" if f.line else (f"`{f.path}`" if f.path else "(whole PR)")
        lines.append(f"- {'🔴' if f.blocking else '🟡'} `{f.code}` {f.name} at {where}: {f.message}")
    if len(findings) > limit:
        lines.append(f"- … and {len(findings) - limit} more (see the summary comment)")
    return "\n".join(lines)
