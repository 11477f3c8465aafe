"""`python -m stacks check-charts`: the chart-backed check of a stack's Helm releases.

The plan itself needs neither Helm nor a chart, and stays so. This check needs both, so it
is a command of its own, run where they are: by CI over every example stack with the
complete vendored charts, and by a user whose charts are in a folder (`--charts DIR`:
`<chart>-<version>/` unpacked or `<chart>-<version>.tgz` as `helm pull` writes it) or in
Helm's repository cache (the default: where `helm install` from a repository leaves the
`.tgz`). Exit 0: every release found was rendered and nothing is wrong; 1: problems (each
at the key to fix); 2: it could not run (no Helm, a stack that does not plan, no chart of
any release found).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from core.errors import GpuCiError
from stacks.offline.charts.check import ChartTools, check_stack
from stacks.offline.charts.value_keys import value_sources
from stacks.offline.engine.records import ProgramRun

USAGE = (
    "  python -m stacks check-charts STACK|--all [--charts DIR]... [--helm PATH] "
    "[--validator PATH [--crds DIR]...]\n"
)


def helm_cache() -> Path:
    """Helm's repository cache: $HELM_REPOSITORY_CACHE, else helm/repository under the
    user's cache folder (Helm's own default, XDG)."""
    given = os.environ.get("HELM_REPOSITORY_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "helm" / "repository"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = sub.add_parser(
        "check-charts",
        help="render every Helm release of a stack with helm template from its real chart; "
        "report values that change nothing (typos, dead values) and, with --validator, "
        "invalid objects (exit 0: clean, 1: problems, 2: cannot run)",
    )
    check.add_argument("stack", nargs="?", help="stack name: Pulumi.STACK.yaml")
    check.add_argument("--all", action="store_true", help="every Pulumi.*.yaml stack")
    check.add_argument(
        "--charts",
        type=Path,
        action="append",
        metavar="DIR",
        help="a folder of charts, <chart>-<version>/ or <chart>-<version>.tgz (repeatable; "
        "default: Helm's repository cache)",
    )
    check.add_argument("--helm", type=Path, metavar="PATH", help="default: helm on PATH")
    check.add_argument(
        "--validator",
        type=Path,
        metavar="PATH",
        help="kubectl-validate: also validate every rendered object for the cluster's "
        "Kubernetes version",
    )
    check.add_argument(
        "--crds",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="more CRDs for --validator (the charts' own are always used)",
    )
    check.add_argument(
        "--render-only", action="store_true", help="render and validate; skip the dead values"
    )
    check.add_argument("--project-dir", type=Path, default=None, metavar="DIR")
    check.set_defaults(usage_error=check.error)


def tools_from(args: argparse.Namespace) -> ChartTools:
    """The tools and folders the arguments name, or one clear error naming the flag."""
    helm = args.helm or (Path(found) if (found := shutil.which("helm")) else None)
    if helm is None or not helm.is_file():
        raise GpuCiError(
            "check-charts needs Helm: give --helm PATH or put helm on PATH (gpu-ci checks "
            "with Helm v3.20.2, the Helm library pulumi-kubernetes embeds)"
            + (f" [given: {args.helm}]" if args.helm else "")
        )
    charts = tuple(args.charts or [helm_cache()])
    for folder in charts:
        if not folder.is_dir():
            raise GpuCiError(f"--charts {folder}: not a folder of charts")
    if args.validator is not None and not args.validator.is_file():
        raise GpuCiError(f"--validator {args.validator}: no such file (kubectl-validate)")
    for folder in args.crds:
        if not folder.is_dir():
            raise GpuCiError(f"--crds {folder}: not a folder of CRDs")
    return ChartTools(helm, charts, args.validator, tuple(args.crds), not args.render_only)


def check_charts(
    args: argparse.Namespace,
    root: Path,
    runs: Mapping[str, ProgramRun | Exception],
    wanted: list[str],
    *,
    out: TextIO | None = None,
) -> int:
    """Check each stack of `wanted` as planned in `runs` (with the stacks they read); a
    line per stack, then its problems."""
    out = out or sys.stdout
    try:
        tools = tools_from(args)
    except GpuCiError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    planned = {name: run for name, run in runs.items() if isinstance(run, ProgramRun)}
    code, rendered = 0, False
    for name in wanted:
        run = runs.get(name) or GpuCiError("not planned")
        if not isinstance(run, ProgramRun):
            print(f"error: {name}: does not plan: {run}", file=sys.stderr)
            code = 2
            continue
        try:
            found = check_stack(run, planned, tools, value_sources(root, name))
        except GpuCiError as err:
            print(f"error: {name}: {err}", file=sys.stderr)
            code = 2
            continue
        rendered = rendered or bool(found.renders)
        print(
            f"{name}: {len(found.renders)} releases rendered (Kubernetes "
            f"{found.kube_version or '?'}), {len(found.problems)} problems",
            file=out,
        )
        for line in found.problems:
            print(f"  error: {line}", file=out)
        for line in found.warnings:
            print(f"  warning: {line}", file=out)
        for line in found.unchecked:
            print(f"  not checked: {line}", file=out)
        if found.problems:
            code = max(code, 1)
    if not rendered and code == 0 and any(_releases(planned)):
        print("error: no chart of any release was found: give --charts DIR", file=sys.stderr)
        return 2
    return code


def _releases(runs: Mapping[str, ProgramRun]) -> list[int]:
    return [len(run.by_type("kubernetes:helm.sh/v3:Release")) for run in runs.values()]
