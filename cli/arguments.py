"""The arguments and options several verbs take, said once."""

import typer

STACK = typer.Argument(..., metavar="STACK", help="a stack of stacks/, e.g. dev", show_default=False)
TEAM_JOB = typer.Argument(..., metavar="TEAM/JOB", help="the job, as the stack config nests it: vision/resnet-smoke")
LOCATIONS = typer.Option([], "--location", metavar="LOCATION", help="also search this region (repeatable)")
SANDBOX = typer.Option(False, "--sandbox", help="the stack's local sandbox (spot-training sandbox up), not Google Cloud: no credentials")
