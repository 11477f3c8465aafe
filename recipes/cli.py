"""`python -m recipes`: aicr's `recipe` and `query` commands over this project's catalogs.

Flags are aicr's (`--gpu` is `--accelerator`). `query --selector` reads the hydrated recipe
(`recipes.resolution.hydrate`): `''` or `.` prints all of it, `components.NAME` one
component with its values; a string, number or boolean prints as plain text, anything else
as YAML. Warnings (catalog keys ignored, a query only the root overlay matches) go to
stderr. Every user error (bad flag, unknown criteria value, broken catalog) prints one
message to stderr and exits 2, without a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

from core import yaml_text
from recipes.catalogs.load import load_catalog
from recipes.errors import RecipeError
from recipes.model.criteria import AICR_VALUES, FIELDS, HELP, RecipeCriteria
from recipes.resolution.hydrate import select
from recipes.resolution.resolver import resolve

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise RecipeError(f"{self.prog}: {message}")


@cache
def _bundled_values() -> dict[str, list[str]]:
    """The criteria values the bundled catalog's overlays pin (none if it does not load)."""
    try:
        catalog = load_catalog(None)
    except RecipeError:
        return {}
    values = {f: sorted(catalog.vocabulary[f]) for f in FIELDS}
    pinned = (o.doc.spec.criteria for o in catalog.overlays.values())
    values["nodes"] = sorted({str(c.nodes) for c in pinned if c is not None and c.nodes})
    return values


def _criterion_help(name: str) -> str:
    known = _bundled_values().get(name, [])
    if name == "nodes":
        pinned = f"the bundled catalog pins {', '.join(known) or 'none'}"
        return f"{HELP[name]}: 0 (the default: any count) or a positive number; {pinned}"
    listed = f"{', '.join(known)} or any" if known else "only any (the bundled catalog pins none)"
    more = ", ".join(v for v in AICR_VALUES[name] if v not in known)
    text = (
        f"{HELP[name]}: {listed}; with --data and AICR's catalog also e.g. {more}. "
        "Default any: only overlays that leave it open. Case-insensitive"
    )
    return text.replace("%", "%%")


def _criteria_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="DIR",
        help="catalog directory; repeat to layer (later wins). Default: recipes/catalog",
    )
    for name in ("service", "accelerator", "os", "intent", "platform"):
        flags = [f"--{name}", "--gpu"] if name == "accelerator" else [f"--{name}"]
        p.add_argument(
            *flags, dest=name, default="any", metavar=name.upper()[0], help=_criterion_help(name)
        )
    p.add_argument("--nodes", type=int, default=0, metavar="N", help=_criterion_help("nodes"))
    p.add_argument("-o", "--output", metavar="FILE", help="write YAML here instead of stdout")


def build_parser() -> argparse.ArgumentParser:
    """The argparse tree (exposed for --help text and tests)."""
    parser = _Parser(prog="python -m recipes", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    recipe = sub.add_parser("recipe", help="resolve criteria into a RecipeResult")
    _criteria_flags(recipe)
    query = sub.add_parser("query", help="print one value of the resolved recipe")
    _criteria_flags(query)
    query.add_argument(
        "--selector",
        required=True,
        help="components.NAME.values.PATH, components.NAME, deploymentOrder, constraints, ...; "
        "'' for the whole hydrated recipe",
    )
    return parser


def run(argv: Sequence[str], warn: list[str] | None = None) -> str:
    """The YAML the command prints; raises RecipeError on any user error.

    Warnings are appended to `warn` when given."""
    args = build_parser().parse_args(argv)
    if args.nodes < 0:
        raise RecipeError("--nodes must be 0 (any) or a positive number")
    catalog = load_catalog([Path(d) for d in args.data] or None, log=warn is None)
    criteria = RecipeCriteria(
        service=args.service,
        accelerator=args.accelerator,
        os=args.os,
        intent=args.intent,
        platform=args.platform,
        nodes=args.nodes,
    )
    result = resolve(catalog, criteria)
    if warn is not None:
        warn += [*catalog.warnings, *result.warnings]
    if args.command == "recipe":
        text = result.to_yaml()
    else:
        text = query_text(select(catalog, result, args.selector))
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise RecipeError(f"-o {args.output}: {exc.strerror}") from None
        return ""
    return text


def query_text(value: Any) -> str:
    """aicr's `writeQueryResult`: a scalar as plain text, anything else as YAML (map keys
    sorted, as Go's YAML encoder writes the hydrated map)."""
    if isinstance(value, bool):
        return f"{str(value).lower()}\n"
    if isinstance(value, str | int | float):
        return f"{value}\n"
    text = yaml_text.dump(value, sort_keys=True)
    # PyYAML's pure-Python emitter (without libyaml) ends a bare scalar with "...".
    return text.removesuffix("...\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: exit 0 with YAML on stdout, or 2 with one message on stderr."""
    warnings: list[str] = []
    try:
        text = run(sys.argv[1:] if argv is None else argv, warnings)
    except RecipeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    sys.stdout.write(text)
    return 0
