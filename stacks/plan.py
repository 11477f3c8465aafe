"""The offline plan: run the real program under mocks with a stack's own config.

A `pulumi preview` without a cloud account or the Pulumi CLI: the same `stacks.program.main`
runs against the recording mock engine, fed the config of `Pulumi.<stack>.yaml`.
"""

from __future__ import annotations

from pathlib import Path

from stacks.mocks import ProgramRun, run_program
from stacks.snapshot import Snapshot, snapshot_of
from stacks.stack_file import read_stack_file

REPO = Path(__file__).resolve().parent.parent


def plan_run(stack: str, root: Path = REPO) -> ProgramRun:
    """Run the program for `stack` offline; raises what `pulumi up` would report."""
    from stacks.program import main  # noqa: PLC0415

    stack_file = read_stack_file(root, stack)
    return run_program(
        main,
        project=stack_file.project,
        stack=stack,
        config=stack_file.config,
        secret_keys=set(stack_file.secret_keys),
    )


def plan_stack(stack: str, root: Path = REPO) -> Snapshot:
    return snapshot_of(plan_run(stack, root))
