"""`pulumi up` of an engine test's project in a process of its own, so a test can kill the CLI mid-update.

    python -m tests.engine.drive_up WORK_DIR STACK

The CLI is this process's child; the program runs in this process (the
Automation API's inline route, tests/engine/project.py). The environment is
the caller's (backend, passphrase, PATH to the CLI and the plugins).
"""

import os
import runpy
import sys

from pulumi import automation as auto

from tests.engine.project import ENGINE


def main() -> None:
    work_dir, stack_name = sys.argv[1:3]

    def program() -> None:
        runpy.run_path(os.path.join(work_dir, "__main__.py"), run_name="__main__")

    stack = auto.select_stack(
        stack_name, project_name="spot-training", program=program,
        opts=auto.LocalWorkspaceOptions(work_dir=work_dir, pulumi_command=auto.PulumiCommand(root=str(ENGINE))),
    )
    stack.up(on_output=print, color="never")


if __name__ == "__main__":
    main()
