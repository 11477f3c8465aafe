"""`python -m stacks`: the offline plan of a stack, and the diff of two plans (`USAGE`).

`stacks/__main__.py` only calls `entry_point`; tests call `main` with an argument list.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

import pulumi

from core.errors import GpuCiError, write_output
from stacks.offline.charts import cli as cli_charts
from stacks.offline.diff.dirs import diff_dirs
from stacks.offline.diff.files import DIFFERENT_STACKS, diff_files
from stacks.offline.plan import REPO, PlanCache, plan_run
from stacks.offline.plan_all import plan_all, write_all
from stacks.offline.snapshot.mermaid import render_mermaid
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from stacks.offline.snapshot.tree import render_tree
from stacks.offline.stack_file.read import stacks_here
from stacks.offline.state import dirs as state_dirs
from stacks.offline.state.synthetic import export_of

USAGE = (
    """The offline plan of a stack, and the diff of two plans.

  python -m stacks plan STACK [--json FILE] [--mermaid FILE] [--export FILE] [--quiet]
  python -m stacks plan --all [--json-dir DIR]
  python -m stacks diff BASE.json HEAD.json [--markdown] [--json FILE]
  python -m stacks diff BASE.json OTHER.json --different-stacks (two stacks, on purpose)
  python -m stacks diff BASE_DIR HEAD_DIR [--markdown] [--json FILE]
  python -m stacks diff --state EXPORT.json HEAD.json (or EXPORT_DIR HEAD_DIR)
"""
    + cli_charts.USAGE
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m stacks",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    plan = sub.add_parser("plan", help="plan a stack offline, under mocks, and print its graph")
    plan.add_argument("stack", nargs="?", help="stack name: plans Pulumi.STACK.yaml")
    plan.add_argument(
        "--all",
        action="store_true",
        help="plan every Pulumi.*.yaml stack in one process (a referenced stack once, before "
        "the stacks that read it), a line per stack; exit 2 if any did not plan",
    )
    plan.add_argument(
        "--json-dir",
        type=Path,
        metavar="DIR",
        help="with --all: write DIR/STACK.json per stack (as --json), DIR/STACK.error for one "
        "that does not plan",
    )
    plan.add_argument("--json", type=Path, metavar="FILE", help="write the plan snapshot")
    plan.add_argument("--mermaid", type=Path, metavar="FILE", help="write a Mermaid flowchart")
    plan.add_argument(
        "--export",
        type=Path,
        metavar="FILE",
        help="write the `pulumi stack export` a `pulumi up` of this plan would leave (secrets "
        "encrypted with no key): a state to try `diff --state` on without a deployed stack",
    )
    plan.add_argument(
        "--quiet", action="store_true", help="print only the resource count, not the tree"
    )
    plan.add_argument(
        "--project-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where Pulumi.yaml and the stack files are (default: this checkout)",
    )
    plan.set_defaults(usage_error=plan.error)
    diff = sub.add_parser(
        "diff",
        help="compare two plan snapshots, or two dirs of them (exit 0: same, 1: changes, "
        "2: bad input)",
        description="Compare two `plan --json` snapshots: resources to add, remove and "
        "change, by the engine's and the providers' rules: create, update, replace (with the "
        "input that forced it) or delete; the changed input paths (secrets masked, long "
        "strings as digests) and dependency changes. Given two `plan --all --json-dir` dirs, "
        "every stack on either side, a referenced stack before the stacks that read it (a "
        "stack on one side only: all creates or all deletes). Exit 0 without changes, 1 with "
        "changes, 2 on bad input.",
    )
    diff.add_argument("base", type=Path, help="the snapshot (or dir) before (e.g. planned on main)")
    diff.add_argument(
        "head", type=Path, help="the snapshot (or dir) after (e.g. planned on the PR)"
    )
    diff.add_argument(
        "--markdown",
        action="store_true",
        help="GitHub markdown: destructive operations first, a table, details and a Mermaid "
        "picture of the changed part",
    )
    diff.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help='write the classification: {"changes": [{"urn", "type", "op", "replaceBecause", '
        '"deleteBeforeReplace"}]} (unchanged resources left out); for two dirs, '
        '{"stacks": {STACK: that}, "errors": {STACK: reason}}',
    )
    diff.add_argument(
        "--state",
        action="store_true",
        help="BASE is a `pulumi stack export` file (or a dir of STACK.json exports): what "
        "`pulumi up` of HEAD does to the deployed stack (docs/day-2.md)",
    )
    diff.add_argument(
        DIFFERENT_STACKS,
        action="store_true",
        help="compare two snapshots of different stacks (a renamed or copied stack) on "
        "purpose; without it, two stacks' plans are refused (exit 2)",
    )
    diff.set_defaults(usage_error=diff.error)
    cli_charts.add_parser(sub)
    return parser


def _check_charts(args: argparse.Namespace) -> int:
    """Plan the stacks asked for (as `plan` does), then check their charts."""
    root = args.project_dir or REPO
    if args.all == (args.stack is not None):
        args.usage_error("give a STACK or --all, not both" if args.all else "give a STACK or --all")
    runs: PlanCache = {}
    wanted = stacks_here(root) if args.all else [args.stack]
    if args.all:
        runs.update(plan_all(root))
    else:
        with contextlib.suppress(Exception):  # kept in `runs`, reported per stack
            plan_run(args.stack, root, cache=runs)
    return cli_charts.check_charts(args, root, runs, wanted)


def _diff(args: argparse.Namespace) -> int:
    if args.different_stacks and (args.state or args.base.is_dir() or args.head.is_dir()):
        # Folders pair stacks by name and refuse a STACK.json of another stack; an export
        # and a plan must be one stack (`check_same_stack`): neither compares two on purpose.
        args.usage_error(
            f"{DIFFERENT_STACKS} compares two plan snapshot files, not --state or dirs"
        )
    if args.state:
        return state_dirs.run(args.base, args.head, markdown=args.markdown, json_out=args.json)
    if args.base.is_dir() or args.head.is_dir():
        code, text = diff_dirs(args.base, args.head, markdown=args.markdown, json_out=args.json)
        sys.stdout.write(text)
        return code
    try:
        code, text = diff_files(
            args.base,
            args.head,
            markdown=args.markdown,
            json_out=args.json,
            different_stacks=args.different_stacks,
        )
    except GpuCiError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return code


def _plan_args(args: argparse.Namespace) -> None:
    """STACK or --all, and the options each takes (argparse's usage error, exit 2)."""
    error = args.usage_error
    if args.all == (args.stack is not None):
        error(
            f"give a STACK or --all, not both: {args.stack!r} and --all"
            if args.all
            else "give a STACK, or --all for every Pulumi.*.yaml stack"
        )
    if args.all and (args.json or args.mermaid or args.export):
        error("--all: --json, --mermaid and --export are per stack; give --json-dir DIR")
    if args.json_dir and not args.all:
        error("--json-dir goes with --all; one stack's snapshot is --json FILE")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "diff":
        return _diff(args)
    if args.command == "check-charts":
        return _check_charts(args)
    _plan_args(args)
    if args.all:
        return write_all(args.project_dir or REPO, args.json_dir)
    try:
        run = plan_run(args.stack, args.project_dir or REPO)
    except (GpuCiError, pulumi.RunError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for level, message in run.logs:  # as `pulumi preview` shows them
        if level in ("warning", "error"):
            print(f"{level}: {message}", file=sys.stderr)
    snap = snapshot_of(run)
    try:
        if args.json:
            write_output(args.json, dumps(snap), "--json")
        if args.mermaid:
            write_output(args.mermaid, render_mermaid(snap), "--mermaid")
        if args.export:
            write_output(args.export, dumps(export_of(snap)), "--export")
    except GpuCiError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    tree = render_tree(snap)
    sys.stdout.write(tree.splitlines(keepends=True)[0] if args.quiet else tree)
    return 0


def entry_point() -> None:
    """`main` as the process: exit with its code, without interpreter teardown."""
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: the Pulumi SDK leaves per-thread event loops whose
    # finalizers can print spurious "Invalid file descriptor" noise at exit.
    os._exit(code)
