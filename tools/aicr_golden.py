"""Record what a real `aicr` binary resolves for every criteria set of an AICR catalog.

`tests/recipes/test_recipe_aicr_golden.py` holds gpu-ci's recipe engine to AICR itself: for
each criteria set of the two shared catalogs, `python -m recipes recipe` and `query
--selector ''` must equal `aicr recipe` and `aicr query --selector ''` of the AICR release
the catalog came with. The golden this tool writes (`tests/golden/aicr/CATALOG.json`) is
that release's output: components, order and versions in clear, every other value as a
digest per leaf path (`tools.aicr_digest`), so the repository keeps facts, not AICR's data.

The criteria sets are the ones AICR's own catalog tests walk (`pkg/recipe/yaml_test.go`
at v0.11.1, e.g. `TestBaseAndOverlaysMergeWithoutConflict` at line 689: one per overlay
file besides `base`): each overlay's `spec.criteria`, given as flags. The binary reads its
embedded catalog, which must be the shared one byte for byte (the binary's `recipes/` at its
commit); `--data` is not passed, so the run is the release as shipped.

    python -m tools.aicr_golden --aicr PATH --catalog v0.11.1     # show differences
    python -m tools.aicr_golden --aicr PATH --catalog v0.11.1 --write --source "v0.11.1"

It prints every difference from the golden on record and exits 1 if there is one (0 with
`--write`, after writing). `--source` records where the binary came from: AICR is not
installable with `go install` (the Go module proxy answers 403 for github.com/NVIDIA/aicr),
so the goldens on record were made with binaries built from AICR's source at those commits.
Needs only the standard library and the project's own catalog loader and JSON reader.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core import read_json
from core.read_limits import AICR_JSON
from recipes.catalogs.load import load_catalog
from recipes.model.criteria import FIELDS
from tools.aicr_digest import tree_id, units

REPO = Path(__file__).resolve().parents[1]
GOLDEN_DIR = REPO / "tests" / "golden" / "aicr"
CATALOGS = {
    "v0.11.1": "aicr-v0.11.1/recipes",
    "main-2026-07-09": "aicr-main-2026-07-09/recipes",
}
"""Golden name: the catalog's folder under the shared upstream data."""
RECIPE = ("recipe", "--format", "json")
QUERY = ("query", "--selector", "", "--format", "json")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def upstream_dir() -> Path:
    """`../shared/upstream`, or `GPU_CI_UPSTREAM` (as the tests find it)."""
    return Path(os.environ.get("GPU_CI_UPSTREAM", REPO.parent / "shared" / "upstream"))


def golden_path(name: str) -> Path:
    """Where the golden of catalog `name` lives."""
    return GOLDEN_DIR / f"{name}.json"


def criteria_sets(catalog_dir: Path) -> dict[str, list[str]]:
    """{overlay: aicr flags for its own criteria}, every overlay besides `base`, in name
    order; a criterion left open is not passed (aicr's flags default to any)."""
    catalog = load_catalog([catalog_dir], log=False)
    sets: dict[str, list[str]] = {}
    for name in sorted(catalog.overlays):
        criteria = catalog.overlays[name].doc.spec.criteria
        if name == "base" or criteria is None:
            continue
        args: list[str] = []
        for field in FIELDS:
            value = criteria.value(field)
            if value and value.lower() != "any":
                args += [f"--{field}", value]
        if criteria.nodes:
            args += ["--nodes", str(criteria.nodes)]
        sets[name] = args
    return sets


def _run(aicr: Path, command: Sequence[str], args: Sequence[str]) -> tuple[int, Any, str]:
    """aicr's exit status, parsed JSON stdout (None on failure) and last stderr line."""
    with tempfile.TemporaryDirectory() as cwd:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": cwd}
        done = subprocess.run(
            [str(aicr), *command, *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            check=False,
            timeout=120,
        )
    lines = [_ANSI.sub("", ln) for ln in done.stderr.splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    if done.returncode != 0:
        return done.returncode, None, last
    return 0, read_json.load(done.stdout, name=f"aicr {command[0]}", limits=AICR_JSON), last


def record_set(aicr: Path, args: list[str], trees: dict[str, dict[str, str]]) -> dict[str, Any]:
    """One criteria set's entry; the leaf maps it refers to are added to `trees`."""

    def keep(digests: dict[str, str]) -> str:
        trees[tree_id(digests)] = digests
        return tree_id(digests)

    entry: dict[str, Any] = {"args": args}
    code, recipe, err = _run(aicr, RECIPE, args)
    entry["exit"] = code
    if recipe is None:
        entry["error"] = err
        return entry
    refs = recipe.get("componentRefs") or []
    entry["appliedOverlays"] = recipe.get("metadata", {}).get("appliedOverlays", [])
    entry["deploymentOrder"] = recipe.get("deploymentOrder", [])
    entry["components"] = [[r["name"], r.get("version", "")] for r in refs]
    entry["recipe"] = {part: keep(d) for part, d in units(recipe).items()}
    code, hydrated, err = _run(aicr, QUERY, args)
    if hydrated is None:
        entry["queryExit"], entry["queryError"] = code, err
        return entry
    entry["query"] = {part: keep(d) for part, d in units(hydrated).items()}
    return entry


def build_golden(aicr: Path, name: str, source: str = "") -> dict[str, Any]:
    """The golden of catalog `name` as the binary at `aicr` resolves it; `source` says
    where that binary came from."""
    sets = criteria_sets(upstream_dir() / CATALOGS[name])
    version = subprocess.run(
        [str(aicr), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    trees: dict[str, dict[str, str]] = {}
    entries = {overlay: record_set(aicr, args, trees) for overlay, args in sets.items()}
    return {
        "aicr": version,
        "aicrSource": source,
        "catalog": CATALOGS[name],
        "commands": [
            "aicr " + shlex.join(RECIPE) + " ARGS",
            "aicr " + shlex.join(QUERY) + " ARGS",
        ],
        "recorded": datetime.date.today().isoformat(),
        "sets": entries,
        "trees": {t: trees[t] for t in sorted(trees)},
    }


def golden_text(golden: dict[str, Any]) -> str:
    """The golden as JSON, one line per criteria set and per leaf map, so a refresh's diff
    shows which sets and components changed."""
    lines = ["{"]
    head = {k: v for k, v in golden.items() if k not in ("sets", "trees")}
    lines += [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in sorted(head.items())]
    for section in ("sets", "trees"):
        items = sorted(golden[section].items())
        lines.append(f" {json.dumps(section)}: {{")
        rows = [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in items]
        lines += [row + ("," if i < len(rows) - 1 else "") for i, row in enumerate(rows)]
        lines.append(" }," if section == "sets" else " }")
    return "\n".join([*lines, "}"]) + "\n"


def _tree_changes(where: str, old: dict[str, str], new: dict[str, str]) -> list[str]:
    out = []
    for path in sorted(old.keys() | new.keys()):
        if old.get(path) != new.get(path):
            state = "added" if path not in old else "removed" if path not in new else "changed"
            out.append(f"{where}: {path or '(root)'} {state}")
    return out


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Every way `new` differs from `old`, one line each, naming set, field and path."""
    out = [f"aicr: {old.get('aicr')} -> {new['aicr']}"] if old.get("aicr") != new["aicr"] else []
    old_sets, new_sets = old.get("sets", {}), new["sets"]
    for name in sorted(old_sets.keys() | new_sets.keys()):
        before, after = old_sets.get(name), new_sets.get(name)
        if before is None or after is None:
            out.append(f"{name}: set {'added' if before is None else 'removed'}")
            continue
        for field in sorted(before.keys() | after.keys()):
            if field in ("recipe", "query"):
                continue
            if before.get(field) != after.get(field):
                out.append(f"{name}: {field}: {before.get(field)!r} -> {after.get(field)!r}")
        for document in ("recipe", "query"):
            q_old, q_new = before.get(document, {}), after.get(document, {})
            for part in sorted(q_old.keys() | q_new.keys()):
                if q_old.get(part) != q_new.get(part):
                    a = old.get("trees", {}).get(q_old.get(part), {})
                    b = new["trees"].get(q_new.get(part), {})
                    out += _tree_changes(f"{name}: {document} {part or '(top)'}", a, b)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate one catalog's golden; print its differences from the one on record."""
    parser = argparse.ArgumentParser(prog="python -m tools.aicr_golden", description=__doc__)
    parser.add_argument("--aicr", required=True, type=Path, help="the aicr binary to run")
    parser.add_argument("--catalog", required=True, choices=sorted(CATALOGS))
    parser.add_argument("--write", action="store_true", help="write the new golden")
    parser.add_argument(
        "--source",
        default="",
        help="where the binary came from, recorded as given (a release, or the commit built)",
    )
    args = parser.parse_args(argv)
    new = build_golden(args.aicr, args.catalog, args.source)
    path = golden_path(args.catalog)
    text = path.read_text(encoding="utf-8") if path.exists() else "{}"
    old = read_json.load(text, name=str(path), limits=AICR_JSON)
    changes = differences(old, new)
    for line in changes:
        print(line)
    print(f"{len(new['sets'])} criteria sets, {len(changes)} difference(s) from {path.name}")
    if args.write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(golden_text(new), encoding="utf-8")
        return 0
    return 1 if changes else 0


if __name__ == "__main__":
    sys.exit(main())
