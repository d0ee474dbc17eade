"""Pure: the Markdown the bot writes, and the hidden markers that let it find its own writing.

Every user-visible string of the bot's comments lives here as a constant.
"""
from __future__ import annotations

import re

from bot import __version__
from rules.engine import Report
from rules.finding import Check, Finding

MARKER_PREFIX = "recipe-review"
SUMMARY_MARKER = f"<!-- {MARKER_PREFIX}:summary -->"
WELCOME_MARKER = f"<!-- {MARKER_PREFIX}:welcome -->"
CONFIG_ERROR_MARKER = f"<!-- {MARKER_PREFIX}:config-error -->"
_FP_RE = re.compile(r"<!-- recipe-review:finding:(RR\d{3}):([0-9a-f]{16}) -->")
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


def _badge(f: Finding) -> str:
    return BLOCKING_BADGE if f.blocking else NIT_BADGE


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 60].rstrip() + "\n\n… (truncated to fit GitHub's size limit)\n"


def inline_comment(f: Finding, with_suggestion: bool, fix_offer: bool = False) -> str:
    """One review comment: badge, message, why, fix (+ suggestion block), evidence, marker.

    `fix_offer`: the repository has `/fix` on, so the misplaced-entry comment offers it.
    """
    parts = [f"{_badge(f)} · `{f.code}` {f.name}", "", f.message]
    if f.why:
        parts += ["", f"**Why it matters:** {f.why}"]
    offer = fix_offer and f.code == "RR001"
    if f.fix or offer:
        tail = (f" Or {FIX_OFFER_MISPLACED}." if f.fix else f"{FIX_OFFER_MISPLACED}.") if offer else ""
        parts += ["", f"**Fix:** {f.fix}{tail}"]
    if with_suggestion and f.suggestion is not None:
        fence = "````" if "```" in f.suggestion else "```"
        body = f.suggestion if f.suggestion.endswith("\n") or not f.suggestion else f.suggestion + "\n"
        parts += ["", f"{fence}suggestion", body.rstrip("\n"), fence]
    if f.evidence:
        parts += ["", "<details><summary>Why this was flagged</summary>", ""]
        parts += [f"- {e}" for e in f.evidence]
        parts += ["", "</details>"]
    parts += ["", finding_marker(f)]
    return _clip("\n".join(parts), MAX_BODY)


def fixed_reply(sha: str) -> str:
    return f"✅ Fixed in `{sha[:7]}` — this finding no longer appears. <!-- {MARKER_PREFIX}:fixed -->"


def _where(f: Finding) -> str:
    if not f.path:
        return "(whole PR)"
    return f"`{f.path}:{f.line}`" if f.line else f"`{f.path}`"


def counts_line(report: Report) -> str:
    passed = sum(1 for c in report.checks if c.status == "passed")
    return (f"🔴 {len(report.blocking)} blocking · 🟡 {len(report.nits)} nit"
            f"{'s' if len(report.nits) != 1 else ''} · ✅ {passed} check{'s' if passed != 1 else ''} passed")


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


def report_markdown(report: Report, head_sha: str, inline: set[str] | None = None,
                    config_errors: list[str] = (), notes: tuple[str, ...] = ()) -> str:
    """The body shared by the summary comment and the check run: counts, findings, checks.

    `inline` is the set of fingerprints posted as inline comments; every other finding is written
    out in full here, so nothing is lost when it cannot sit on a diff line.
    """
    inline = inline or set()
    lines = [f"## recipe-review · `{head_sha[:7]}`", "", counts_line(report)]
    for note in notes:
        lines += ["", note]
    if config_errors:
        lines += ["", "⚠️ `.github/recipe-review.yml` on the base branch is invalid; the defaults were used:", ""]
        lines += [f"- {e}" for e in config_errors]
    if report.findings:
        lines += ["", "### Findings", "", "| | Rule | Where | What |", "|---|---|---|---|"]
        for f in report.findings:
            badge = "🔴" if f.blocking else "🟡"
            msg = f.message.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {badge} | `{f.code}` {f.name} | {_where(f)} | {msg} |")
        outside = [f for f in report.findings if f.fingerprint not in inline]
        if outside:
            lines += ["", "#### Not on a diff line (details here)", ""]
            for f in outside:
                lines.append(f"- {'🔴' if f.blocking else '🟡'} **`{f.code}` {f.name}** at {_where(f)}: {f.message}")
                if f.why:
                    lines.append(f"  - *Why it matters:* {f.why}")
                if f.fix:
                    lines.append(f"  - *Fix:* {f.fix}")
                for e in f.evidence:
                    lines.append(f"  - {e}")
    else:
        lines += ["", "No findings."]
    lines += _checks_section(report.checks)
    return "\n".join(lines)


def summary_comment(report: Report, head_sha: str, inline: set[str] | None = None,
                    config_errors: list[str] = (), fixable: frozenset[str] = frozenset()) -> str:
    """`fixable`: fingerprints of the findings `/fix` repairs (empty when the repository switched it off)."""
    offer = fix_offer_line(report, fixable) if fixable else None
    body = report_markdown(report, head_sha, inline, config_errors, (offer,) if offer else ())
    footer = f"\n\n<sub>Edited in place on every push · recipe-review {__version__} · `/help` for commands</sub>"
    return _clip(body, MAX_BODY - len(footer) - len(SUMMARY_MARKER) - 2) + footer + "\n" + SUMMARY_MARKER


def review_body(report: Report, n_inline: int) -> str:
    if not report.findings:
        return "recipe-review found nothing to flag. The summary comment lists what was verified."
    extra = len(report.findings) - n_inline
    tail = f" {extra} more in the summary comment (not on a diff line)." if extra > 0 else ""
    return f"{counts_line(report)}.{tail} Findings marked 🟡 are optional and need no follow-up push."


def check_run_output(report: Report, head_sha: str, inline: set[str] | None = None,
                     config_errors: list[str] = ()) -> dict:
    title = (f"{len(report.blocking)} blocking finding{'s' if len(report.blocking) != 1 else ''}"
             if report.blocking else
             (f"No blocking findings ({len(report.nits)} nit{'s' if len(report.nits) != 1 else ''})"
              if report.nits else "No findings"))
    return {"title": title,
            "summary": _clip(report_markdown(report, head_sha, inline, config_errors), MAX_CHECK_SUMMARY)}


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


def fix_findings_list(findings, limit: int = 10) -> str:
    lines = []
    for f in findings[:limit]:
        where = f"`{f.path}:{f.line}`" if f.line else (f"`{f.path}`" if f.path else "(whole PR)")
        lines.append(f"- {'🔴' if f.blocking else '🟡'} `{f.code}` {f.name} at {where}: {f.message}")
    if len(findings) > limit:
        lines.append(f"- … and {len(findings) - limit} more (see the summary comment)")
    return "\n".join(lines)
