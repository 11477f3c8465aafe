"""Run the real program in-process against a recording mock engine.

`pulumi.runtime.set_mocks` alone hands tests only a resource's inputs. `run_program` runs
the program under `RecordingMonitor` (`stacks.offline.engine.monitor`), which records every
request whole, and adds the engine's log lines and the stack's resolved exports. The
offline plan and the tests both use it, so what a test asserts is what
`python -m stacks plan` prints.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import settings
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _ensure_event_loop, _sync_await

from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.monitor import RecordingMocks, RecordingMonitor
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import Secret


class _LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelname.lower(), record.getMessage()))


async def _resolve(value: Any) -> Any:
    """An export's final value, with secret-ness kept as `Secret` and unknowns as None."""
    output = pulumi.Output.from_input(value)
    is_secret = await output.is_secret()
    known = await output.is_known()
    resolved = await output.future(with_unknowns=True) if known else None
    if isinstance(resolved, dict):
        resolved = {k: await _resolve(v) for k, v in resolved.items()}
    elif isinstance(resolved, list):
        resolved = [await _resolve(v) for v in resolved]
    if not known:
        resolved = "[unknown]"
    return Secret(resolved) if is_secret else resolved


async def _sources(value: Any) -> list[str]:
    """The URNs of the resources an export's value is built from: what a stack reading it
    through a StackReference sees change when they are replaced."""
    resources = await pulumi.Output.from_input(value).resources()
    return sorted({await r.urn.future() or "" for r in resources} - {""})


def _quiet_unretrieved(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """One failed lookup fails every output built on it; report it once, not per output.

    The first failure propagates out of `run_program`; the copies left in dependent
    futures would otherwise be printed as "Future exception was never retrieved".
    """
    if context.get("message") == "Future exception was never retrieved":
        return
    loop.default_exception_handler(context)


def run_program(
    program: Callable[[], None],
    *,
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: set[str] | None = None,
    preview: bool = True,
    cloud: FakeCloud | None = None,
    registrations: list[Registration] | None = None,
    root_directory: Path | None = None,
) -> ProgramRun:
    """Run `program` as `pulumi preview` (or `up`, preview=False) would, but in-process.

    `root_directory` is the project's folder, which the CLI gives a program as
    `pulumi.get_root_directory()` (set_mocks leaves it None).

    Exceptions raised by the program propagate unchanged, so a config error reaches the
    caller exactly as `pulumi up` would report it. Pass a list as `registrations` to see
    what registered even when the program fails: every request is appended to it.
    """
    cloud = cloud or FakeCloud(config)
    monitor = RecordingMonitor(RecordingMocks(cloud, preview=preview))
    if registrations is not None:
        monitor.registrations = registrations
    logger = logging.getLogger(f"gpu-ci.plan.{stack}")
    logger.propagate = False
    capture = _LogCapture()
    logger.handlers = [capture]
    logger.setLevel(logging.DEBUG)
    settings.ROOT.set(None)
    pmocks.set_mocks(
        monitor.mocks, project=project, stack=stack, preview=preview, logger=logger, monitor=monitor
    )
    settings.SETTINGS.root_directory = str(root_directory) if root_directory else None
    pulumi.runtime.set_all_config(dict(config), sorted(secret_keys or ()))
    settings.SETTINGS.outputs.clear()
    loop = _ensure_event_loop()  # type: ignore[no-untyped-call]
    loop.set_exception_handler(_quiet_unretrieved)
    try:
        _sync_await(run_pulumi_func(program))
    except Exception:
        if monitor.refused:  # the engine's refusal is the cause, whatever surfaced
            raise monitor.refused[0] from None
        raise
    if monitor.refused:
        raise monitor.refused[0]
    root = settings.get_root_resource()
    raw_exports = dict(getattr(root, "outputs", {}) or {})

    async def resolve_all() -> dict[str, Any]:
        return {k: await _resolve(v) for k, v in sorted(raw_exports.items())}

    exports = _sync_await(resolve_all())

    async def sources_all() -> dict[str, list[str]]:
        return {k: await _sources(v) for k, v in sorted(raw_exports.items())}

    return ProgramRun(
        project,
        stack,
        monitor.registrations,
        monitor.invokes,
        capture.records,
        exports,
        _sync_await(sources_all()),
    )
