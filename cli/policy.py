"""`spot-training policy STACK`: the policy pack (policy/) over every resource
the stack's program registers, offline, as `pulumi preview --policy-pack policy`
would send them; every violation with its full message.

Exit 0 when no mandatory policy is violated (advisories are printed), 1 when
one is or the stack is not deployable, 2 for a stack that does not exist or
without the pack's environment (policy/.venv).
"""

from __future__ import annotations

import textwrap

import typer

from cli import arguments, output


def register(app: typer.Typer) -> None:
    app.command(name="policy")(policy)


def policy(stack: str = arguments.STACK) -> None:
    """Run the policy pack over the stack's rendered resources, offline; exit 1 on a mandatory violation.

    \b
    Examples:
      spot-training policy dev
    """
    import pulumi

    from offline.program import UnknownStack
    from operations.policy_pack import PackMissing, check

    try:
        with output.progress(f"running the policy pack over {stack}"):
            report = check(stack)
    except (UnknownStack, PackMissing) as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    except pulumi.RunError as problem:  # ConfigError, StackFileError, SpecError: one message listing every failure
        output.error(str(problem))
        raise typer.Exit(1) from None
    for v in report.violations:
        # The whole message, never cut to a column: it says what to write instead.
        output.out.print(f"{v.policy} ({v.level})  {v.urn}\n{textwrap.indent(v.message, '  ')}\n", markup=False)
    for value in report.unknown:
        output.note(f"{value}: its digest is known only at deploy; sent to the pack as unknown, as a preview sends an unknown value (checked at `up`)")
    n, mandatory = len(report.violations), len(report.mandatory)
    if n:
        verdict = f"{n} violation{'s' if n != 1 else ''} ({mandatory} mandatory, {n - mandatory} advisory)"
    else:
        verdict = "no violations"
    output.out.print(f"{stack}: {verdict} in {report.resources} resources", markup=False)
    if mandatory:
        raise typer.Exit(1)
