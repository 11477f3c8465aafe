"""Parsed-YAML cache shared by every catalog load.

Catalog files are read once per process and keyed by (path, mtime, size), so resolving
many recipes, or loading the same data directories twice, never re-parses a file. Parsing
goes through `core.yaml_text` (libyaml, with the pure-Python loader's error messages),
which keeps a cold catalog load well under budget.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from core import yaml_text
from recipes.errors import RecipeError

_cache: dict[tuple[str, int, int], Any] = {}


def load_yaml(path: Path, rel: str) -> Any:
    """The single YAML document in `path`; `rel` names the file in error messages."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise RecipeError(f"{rel}: cannot read file: {exc.strerror}") from None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key in _cache:
        return _cache[key]
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml_text.load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise RecipeError(f"{rel}: malformed YAML: {where}{exc.problem}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise RecipeError(f"{rel}: malformed YAML: {exc}") from None
    _cache[key] = data
    return data
