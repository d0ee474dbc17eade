"""Flags a runner launcher that is a regular file with no commands (a bare path where a symlink was meant).

## Why it matters
The workflow runs `bash ./runners/launch_<runner>.sh`. A launcher that reuses another is a git
symlink (mode 120000): its blob text is the target's name and bash follows the link. Commit the
same text as a regular file and bash runs `launch_b200-dgxc.sh` as a command: every job on that
runner fails. Read the file mode, not the text: a symlink is fine (#1649's reviewer saw a bare
path where the file was in fact a valid symlink).

## When it fires
On each runner launcher the PR adds or changes that is not a symlink (git mode 120000): it fires
when the file holds no command at all (empty, or comments only), or when it holds a single command
and its whole text is one word ending in `.sh` (a bare path). A symlink passes, and so does a
launcher with more than one command, an assignment or a function; a single command that is not a
bare path is not flagged (and reports nothing); a file that cannot be read as a script is Skipped
with the reason.

## Example
    runners/launch_b200-dgxc-slurm.sh   mode 100644, content: launch_b200-dgxc.sh

## Fix
Make it a symlink (`ln -sf launch_b200-dgxc.sh runners/launch_b200-dgxc-slurm.sh`, then `git add`),
or give it real commands.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts
from rules.scripts.parse import Unreadable
from rules.scripts.resolve import SYMLINK, parsed

CODE = "RR413"
NAME = "launcher-not-a-script"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for f in changed_scripts(ctx, ("launchers",)):
        mode = ctx.changeset.mode(f.path)
        if mode == SYMLINK:
            target = (f.head or b"").decode("utf-8", "replace").strip()
            yield Passed(f"{f.path} is a symlink to `{target}`", path=f.path)
            continue
        script = parsed(ctx, f.path)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; not checked", path=f.path)
            continue
        real = [c for c in script.commands if c.name is not None or c.args]
        if len(real) > 1 or script.assignments or script.functions:
            yield Passed(f"{f.path}: {len(script.commands)} commands", path=f.path)
            continue
        text = script.text.strip()
        looks_like_path = "\n" not in text and text.endswith(".sh") and " " not in text
        if not real or looks_like_path:
            shown = text[:80] or "(empty)"
            yield Problem(f.path, 1, f"launcher `{f.path}` is a regular file whose only content is `{shown}`",
                          evidence=(f"git mode {mode or '100644'} (a symlink is 120000)",
                                    "bash would run that text as a command"))
