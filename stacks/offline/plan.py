"""The offline plan: run the real program under mocks with a stack's own config.

A `pulumi preview` without a cloud account or the Pulumi CLI: the same `stacks.program.main`
runs against the recording mock engine, fed the config of `Pulumi.<stack>.yaml`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pulumi

from components.cluster.reference import REQUIRED_EXPORTS
from core.errors import GpuCiError, did_you_mean
from stacks.config import StackConfig, load_config, raw_from_flat
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.references import reference_exports
from stacks.offline.snapshot.recorded import snapshot_of
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.stack_file.read import read_stack_file, stacks_here, stacks_listing
from stacks.program import main

REPO = Path(__file__).resolve().parents[2]


def local_stack_name(reference: str, project: str) -> str:
    """The stack of this project a reference names: `gpu-dev`, `org/gpu-ci/gpu-dev`."""
    parts = reference.split("/")
    if len(parts) == 3 and parts[1] != project:
        raise GpuCiError(
            f"stack reference {reference!r} names project {parts[1]!r}; the offline plan "
            f"can only plan stacks of this project ({project!r})"
        )
    if len(parts) not in (1, 3):
        raise GpuCiError(f"stack reference {reference!r} is neither STACK nor ORG/PROJECT/STACK")
    return parts[-1]


def _check_reference(config: StackConfig, reference: str, exports: dict[str, Any]) -> None:
    """A referenced stack must export what this stack reads from it.

    The offline plan has planned it already, so a missing export is refused here, before
    anything registers (`pulumi up` finds out only when the StackReference is read).
    """
    keys = [key for key, stack in config.cluster_stacks().items() if stack == reference]
    missing = [name for name in REQUIRED_EXPORTS if name not in exports]
    if keys and missing:
        raise pulumi.RunError(
            f"{' and '.join(keys)}: stack {reference!r} exports no "
            f"{', '.join(f'`{m}`' for m in missing)} (it exports: "
            f"{', '.join(sorted(exports)) or 'nothing'}); point clusterStack at a stack "
            "that sets gpu-ci:cluster"
        )


def _check_stack_exists(
    root: Path, stack: str, config: StackConfig, reference: str, other: str
) -> None:
    """A referenced stack must be a stack file here: refused naming the file and the key
    that reference it (a typo'd stack name is a config mistake, not a missing stack)."""
    if (root / f"Pulumi.{other}.yaml").is_file():
        return
    keys = [key for key, named in config.cluster_stacks().items() if named == reference]
    guess = did_you_mean(other, stacks_here(root))
    hint = f"; did you mean {guess!r}?" if guess else ""
    raise GpuCiError(
        f"Pulumi.{stack}.yaml: {' and '.join(keys)} names stack {reference!r}, which has no "
        f"Pulumi.{other}.yaml here ({stacks_listing(root)}){hint}"
    )


class ReferenceCycleError(GpuCiError):
    """Stacks that reference each other, in a ring: none of them can be planned first."""

    def __init__(self, stacks: tuple[str, ...]) -> None:
        super().__init__(f"stack references form a cycle: {' -> '.join(stacks)}")
        self.stacks = stacks


class ReferenceFailedError(GpuCiError):
    """A stack not planned because a stack it reads did not plan (with a shared cache)."""


PlanCache = dict[str, ProgramRun | Exception]
"""Stacks of one project dir planned so far (`plan_run`'s `cache`): the run, or the error
it failed with (any exception: one stack's bug must not stop the others)."""


def _referenced(
    stack: str,
    config: StackConfig,
    reference: str,
    other: str,
    root: Path,
    notes: list[str] | None,
    cache: PlanCache | None,
    planning: tuple[str, ...],
) -> ProgramRun:
    """The run of the stack `reference` names; with a cache, planned once for everyone.

    Without a cache its error is this stack's error, as `pulumi up` of this stack would
    fail on it; with one, its error is reported for it, and this stack fails naming it."""
    if cache is None:
        return plan_run(other, root, notes=notes, _planning=planning)
    try:
        return plan_run(other, root, notes=notes, cache=cache, _planning=planning)
    except Exception as err:
        if isinstance(err, ReferenceCycleError) and stack in err.stacks:  # each on it says so
            raise
        keys = [key for key, named in config.cluster_stacks().items() if named == reference]
        raise ReferenceFailedError(
            f"Pulumi.{stack}.yaml: {' and '.join(keys)} names stack {reference!r}, which "
            f"did not plan"
        ) from err


def plan_run(
    stack: str,
    root: Path = REPO,
    *,
    registrations: list[Registration] | None = None,
    notes: list[str] | None = None,
    cache: PlanCache | None = None,
    _planning: tuple[str, ...] = (),
) -> ProgramRun:
    """Run the program for `stack` offline; raises what `pulumi up` would report.

    A stack that reads another stack of this project through a StackReference gets that
    stack's planned exports: it is planned first, and its secrets stay secrets.
    `registrations`, if given, receives this stack's requests even when the run fails.
    `notes`, if given, receives a line per Pulumi ESC environment a stack file imports
    (which keys it gave, read offline from esc/); without it they go to stderr as
    `note: ...`, before anything is planned.
    `cache`, if given, holds every stack of `root` planned so far, by name, with its run
    or the error it failed with: each stack is planned once, whoever asks for it first,
    and entries are added as stacks finish, so a referenced stack comes before the stacks
    that read it. A stack whose referenced stack failed fails naming it (`ReferenceFailedError`).
    """
    if stack in _planning:
        raise ReferenceCycleError((*_planning, stack))
    if cache is None:
        return _plan_run(stack, root, registrations, notes, None, _planning)
    found = cache.get(stack)
    if found is None:
        try:
            found = _plan_run(stack, root, registrations, notes, cache, _planning)
        except Exception as err:  # kept for whoever asks next, then raised
            found = err
        cache[stack] = found
    if isinstance(found, ProgramRun):
        return found
    raise found


def _plan_run(
    stack: str,
    root: Path,
    registrations: list[Registration] | None,
    notes: list[str] | None,
    cache: PlanCache | None,
    _planning: tuple[str, ...],
) -> ProgramRun:
    stack_file = read_stack_file(root, stack)
    if notes is None:
        for note in stack_file.notes:
            print(f"note: {note}", file=sys.stderr)
    else:
        notes.extend(stack_file.notes)
    try:
        raw = raw_from_flat(
            stack_file.config,
            stack_file.secret_keys,
            secret_leaves=stack_file.secret_leaves,  # each credential a secret itself
            esc_leaves=stack_file.esc_leaves,
        )
        config = load_config(raw, stack, root)
    except GpuCiError as err:  # reported exactly as the program reports it
        raise pulumi.RunError(str(err)) from None
    references: dict[str, StackExports] = {}
    planned: dict[str, ProgramRun] = {}  # by local stack name: `gpu-dev`, `org/gpu-ci/gpu-dev`
    for reference in config.referenced_stacks():  # every one, each checked for its keys
        other = local_stack_name(reference, stack_file.project)
        _check_stack_exists(root, stack, config, reference, other)
        if other not in planned:
            planning = (*_planning, stack)
            planned[other] = _referenced(
                stack, config, reference, other, root, notes, cache, planning
            )
        _check_reference(config, reference, planned[other].exports)
        references[reference] = reference_exports(other, planned[other])
    return run_program(
        main,
        project=stack_file.project,
        stack=stack,
        config=stack_file.config,
        secret_keys=set(stack_file.secret_keys),
        cloud=FakeCloud(stack_file.config, references),
        registrations=registrations,
        root_directory=root,
    )


def plan_stack(stack: str, root: Path = REPO) -> Snapshot:
    return snapshot_of(plan_run(stack, root))
