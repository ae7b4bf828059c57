"""`spot-training diff STACK [--against REF]`: what a change does to the stack's jobs,
job by job, before anyone runs `pulumi preview`: offline, no credentials.

Both sides are rendered by the code checked out here: the working tree's
stacks/Pulumi.STACK.yaml as it is, and REF's (default: the merge base with the
default branch: origin/HEAD, else init.defaultBranch, main, master) from a
`git archive` of REF, with its package and image paths resolved against that tree. A job is added (+), removed (-) or changed (~); a changed
job lists each field by path as `pulumi preview --diff` does, and says whether
the change resubmits it (a field of spec.JOB_FIELDS or spec.TRIGGER_FIELDS) or
only updates it in place (a provider knob).

Exit 0 with the report, 1 for an invalid stack (at either side), 2 for a
stack that does not exist here, a ref git does not know, or no git.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from components.pricing.hourly import Hourly
    from components.pricing.table import PriceTable

from cli import arguments, output

# The branch names tried, in order, after origin/HEAD and init.defaultBranch.
DEFAULT_BASES = ("main", "master")
_MISSING = object()


class BadRef(Exception):
    """A ref git does not know, or no git repository to ask."""


class InvalidStack(Exception):
    """A stack that does not render: its message lists every failure."""


def register(app: typer.Typer) -> None:
    app.command(name="diff")(diff)


def diff(
    stack: str = arguments.STACK,
    against: str = typer.Option(None, "--against", metavar="REF", help="the git ref to compare with (default: the merge base of HEAD and the default branch: origin/HEAD, init.defaultBranch, main or master)"),
) -> None:
    """The stack's jobs at a git ref beside the working tree's: added, removed, changed field by field, and whether each change resubmits.

    \b
    Examples:
      spot-training diff dev
          against the merge base with the default branch
      spot-training diff dev --against origin/main
    """
    from offline.program import UnknownStack

    try:
        repo = _toplevel()
        if against:
            ref, shown = against, against
        else:
            base = _default_branch(repo)
            ref, shown = _merge_base(repo, base), f"the merge base with {base}"
        commit = _commit(repo, ref)
        try:
            with output.progress(f"rendering {stack} in the working tree"):
                new, gone = jobs_of(stack), None
        except UnknownStack as problem:  # removed here: every job of REF's is removed, if REF has it
            new, gone = {}, problem
        with output.progress(f"rendering {stack} at {ref}"):
            old = _jobs_at(repo, commit, ref, stack)
        if gone is not None and old is None:
            raise gone
    except UnknownStack as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    except BadRef as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    except InvalidStack as problem:
        output.error(str(problem))
        raise typer.Exit(1) from None
    short = commit[:12]
    print(f"stack {stack}: the working tree against {shown} ({short})" if shown != short else f"stack {stack}: the working tree against {short}")
    if gone is not None:
        print(f"stacks/Pulumi.{stack}.yaml is gone from the working tree: every job of {ref} is removed")
    from stack_config.prices import table

    print(report(old or {}, new, table(stack)))


# --- the two renders ---------------------------------------------------------------


def jobs_of(stack: str) -> dict[str, dict[str, Any]]:
    """Every job of the stack as "team/job" -> the inputs the provider receives, rendered
    offline by the program itself (as offline.render does), with cwd's relative paths."""
    import pulumi

    from offline.render import provider_inputs

    try:
        jobs, _ = provider_inputs(stack)
    except pulumi.RunError as problem:  # ConfigError, StackFileError, SpecError: every failure in one message
        raise InvalidStack(str(problem)) from None
    return {f"{team}/{job}": inputs for (team, job), inputs in jobs.items()}


def _jobs_at(repo: Path, commit: str, ref: str, stack: str) -> dict[str, dict[str, Any]] | None:
    """The stack's jobs as REF's tree describes them, rendered by this code, in this process,
    against a `git archive` of REF: the stack files and the paths they name (packages, build
    contexts) are REF's, resolved in that tree as the program resolves them (in the stack's
    project directory); None if REF has no such stack.

    In this process, not one of its own (as it was until 2026-12): the render reads nothing
    but its stack file and the paths under its project, and keeps nothing between renders a
    later one would read back (the canonical form is a function of the definition; built
    sdists are kept by the hash of their source). Only the environment variable naming the
    stacks directory and the working directory are REF's for the while, and put back after.
    What the render says on the way (notes, warnings) is REF's, not what the reviewer acts
    on, and is not shown; its errors are, naming REF."""
    from stack_config import stack_file

    with tempfile.TemporaryDirectory(prefix="spot-training-diff-") as tmp:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True)
        if archive.returncode != 0:
            raise BadRef(f"cannot export {ref} with `git archive`: {' '.join(archive.stderr.decode().split())}")
        untar = subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, capture_output=True)
        if untar.returncode != 0:
            raise BadRef(f"cannot unpack {ref}'s tree: {' '.join(untar.stderr.decode().split())}")
        stacks = _stacks_dir_in_repo(repo, Path(tmp))
        if not (Path(tmp) / stacks / f"Pulumi.{stack}.yaml").is_file():
            return None  # the stack is new: every job is added
        try:
            with _in_tree(Path(tmp), {stack_file.STACKS_DIR_ENV: str(Path(tmp) / stacks)}):
                return jobs_of(stack)
        except InvalidStack as problem:
            raise InvalidStack(f"at {ref}: {problem}") from None


@contextlib.contextmanager
def _in_tree(tree: Path, environment: dict[str, str]) -> Iterator[None]:
    """This process in REF's tree for a render: cwd, these variables, and stdout and stderr
    held back; each put back as it was, whatever the render raised."""
    previous_cwd, previous = Path.cwd(), {name: os.environ.get(name) for name in environment}
    os.chdir(tree)
    os.environ.update(environment)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        os.chdir(previous_cwd)
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _stacks_dir_in_repo(repo: Path, tree: Path) -> Path:
    """Where the stack files are, relative to the repository root: where they are here, or
    else where REF's Pulumi.yaml says (its stackConfigDir)."""
    import yaml

    from stack_config import stack_file

    try:
        return stack_file.stacks_dir().resolve().relative_to(repo.resolve())
    except ValueError:
        pass
    try:
        project = yaml.safe_load((tree / "Pulumi.yaml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        project = {}
    return Path(project.get("stackConfigDir") or ".") if isinstance(project, dict) else Path(".")


# --- git -----------------------------------------------------------------------------


def _git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        raise BadRef("git is not on PATH: diff compares with a git ref") from None


def _toplevel() -> Path:
    """The checkout of the project whose stack files are read (stack_config.project), wherever diff is run."""
    from stack_config import project

    where = project.directory()
    done = _git("rev-parse", "--show-toplevel", cwd=where)
    if done.returncode != 0:
        raise BadRef(f"{where} is not in a git repository: diff compares the project's checkout with a git ref")
    return Path(done.stdout.strip())


def _default_branch(repo: Path) -> str:
    """The branch a change merges into: the remote's default branch as the clone recorded it
    (origin/HEAD, or another remote's: upstream/HEAD), else the local branch init.defaultBranch
    names, else main, else master."""
    names = _git("remote", cwd=repo).stdout.split()
    remotes = sorted(names, key=lambda name: name != "origin")  # origin first, the others as git lists them
    heads = [_git("symbolic-ref", "--quiet", "--short", f"refs/remotes/{r}/HEAD", cwd=repo).stdout.strip() for r in remotes]
    configured = _git("config", "--get", "init.defaultBranch", cwd=repo).stdout.strip()
    candidates = [c for c in (*heads, configured, *DEFAULT_BASES) if c]
    for candidate in dict.fromkeys(candidates):
        if _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{candidate}^{{commit}}", cwd=repo).returncode == 0:
            return candidate
    looked = ", ".join([*(f"{r}/HEAD" for r in remotes or ["origin"]), "init.defaultBranch", *DEFAULT_BASES])
    raise BadRef(f"no default branch to take the merge base with (looked for {looked}); name the ref to compare with: --against REF")


def _merge_base(repo: Path, base: str) -> str:
    done = _git("merge-base", "HEAD", base, cwd=repo)
    if done.returncode != 0:
        reason = " ".join(done.stderr.split()) or "they share no commit"
        raise BadRef(f"no merge base of HEAD and {base} ({reason}); name the ref to compare with: --against REF")
    return done.stdout.strip()


def _commit(repo: Path, ref: str) -> str:
    done = _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", cwd=repo)
    if done.returncode != 0:
        raise BadRef(f"{ref!r} is not a commit git knows in {repo} (a branch, tag or commit)")
    return done.stdout.strip()


# --- the report ----------------------------------------------------------------------


def report(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]], price_table: Any = None) -> str:
    """The changes job by job, then (with `price_table`) the change in each job's price per hour."""
    text = _changes(old, new)
    return text if price_table is None else f"{text}\n\n{price_change(old, new, price_table)}"


PRICE_TITLE = (
    "price per hour (USD, on each job's own strategy and region, every replica of every pool; both sides priced "
    "by this checkout's table and spot-training:prices, docs/costs.md):"
)


def price_change(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]], price_table: Any) -> str:
    """Each job whose price per hour the change moves, before → after and by how much; then
    the stack's total over the jobs whose prices are known on both sides."""
    from components.pricing import money

    lines = [PRICE_TITLE]
    before_total = after_total = 0.0
    unknown, approximate, marked = [], False, False
    for name in sorted(set(old) | set(new)):
        before = _hourly(old.get(name), price_table)
        after = _hourly(new.get(name), price_table)
        if any(side is not None and side.usd is None for side in (before, after)):
            unknown.append(name)
        else:  # an absent side (added, removed) costs nothing per hour
            before_total += before.usd if before is not None and before.usd is not None else 0.0
            after_total += after.usd if after is not None and after.usd is not None else 0.0
            approximate = approximate or any(side is not None and side.approximate for side in (before, after))
        if before == after:
            continue
        lines.append(f"  {name}: {_price(before)} → {_price(after)}{_delta(before, after)}")
        marked = marked or any(side is not None and side.approximate for side in (before, after))
    if len(lines) == 1:
        lines.append("  no job's price per hour changes")
    priced = set(old) | set(new)
    if priced and set(unknown) == priced:
        lines.append("  total: no job's price is known on both sides")
    else:
        total = (
            f"total of the jobs priced on both sides: {money.per_hour(before_total, approximate)} → "
            f"{money.per_hour(after_total, approximate)} ({money.per_hour(after_total - before_total, approximate, sign=True)})"
        )
        lines.append(f"  {total}")
    if unknown:
        lines.append(f"  unknown, not in the total: {', '.join(unknown)} (docs/costs.md: set prices in spot-training:prices)")
    if approximate or marked:
        lines.append(f"  {money.LEGEND}")
    lines += [f"  {line}" for line in _dated(price_table)]
    return "\n".join(lines)


def _dated(price_table: PriceTable) -> list[str]:
    from datetime import date

    from offline.render import dated

    return dated(price_table, date.today())


def _hourly(inputs: dict[str, Any] | None, price_table: PriceTable) -> Hourly | None:
    from components.pricing.hourly import hourly
    from components.spot_job.model import defaults

    if inputs is None:
        return None
    spec = inputs.get("jobSpec") or {}
    strategy = (spec.get("scheduling") or {}).get("strategy") or defaults.DEFAULT_STRATEGY
    return hourly(spec, inputs.get("location") or "", strategy, price_table)


def _price(hourly: Any) -> str:
    return "none" if hourly is None else hourly.text()


def _delta(before: Any, after: Any) -> str:
    from components.pricing import money

    b = 0.0 if before is None else before.usd
    a = 0.0 if after is None else after.usd
    if a is None or b is None:
        return ""
    approximate = any(side is not None and side.approximate for side in (before, after))
    return f" ({money.per_hour(a - b, approximate, sign=True)})"


def _changes(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> str:
    from components.spot_job.model import spec

    lines, added, removed, changed, resubmits, same = [], 0, 0, 0, 0, 0
    for name in sorted(set(old) | set(new)):
        if name not in old:
            added += 1
            lines.append(f"+ {name}: submitted")
        elif name not in new:
            removed += 1
            lines.append(f"- {name}: removed (an active job is cancelled, unless onDelete: keep)")
        else:
            defining = list(_paths(spec.job_definition(old[name]), spec.job_definition(new[name]), ""))
            defining += [line for key in spec.TRIGGER_FIELDS for line in _paths(old[name].get(key, _MISSING), new[name].get(key, _MISSING), key)]
            knobs = sorted(set(old[name]) | set(new[name]))
            knobs = [k for k in knobs if k not in spec.JOB_FIELDS and k not in spec.TRIGGER_FIELDS]
            in_place = [line for key in knobs for line in _paths(old[name].get(key, _MISSING), new[name].get(key, _MISSING), key)]
            if not defining and not in_place:
                same += 1
                continue
            changed += 1
            if defining:
                resubmits += 1
                lines.append(f"~ {name}: resubmits (a job-defining field changed; a CustomJob cannot be changed)")
            else:
                lines.append(f"~ {name}: updates in place (provider settings only; the job keeps running)")
            lines += [f"    {line}" for line in defining + in_place]
    summary = f"{added} to add, {changed} to change ({resubmits} resubmits), {removed} to remove, {same} unchanged"
    if not lines:
        return f"no changes: {summary}"
    return "\n".join(lines) + "\n\n" + summary


def _paths(before: Any, after: Any, path: str) -> Iterator[str]:
    """Leaf by leaf, as `pulumi preview --diff` lists a property: ~ changed, + added, - removed."""
    if before == after:
        return
    if before is _MISSING:
        yield f"+ {path}: {_show(after)}"
    elif after is _MISSING:
        yield f"- {path}: {_show(before)}"
    elif isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            yield from _paths(before.get(key, _MISSING), after.get(key, _MISSING), f"{path}.{key}" if path else key)
    elif isinstance(before, list) and isinstance(after, list):
        for i in range(max(len(before), len(after))):
            yield from _paths(before[i] if i < len(before) else _MISSING, after[i] if i < len(after) else _MISSING, f"{path}[{i}]")
    else:
        yield f"~ {path}: {_show(before)} => {_show(after)}"


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."
