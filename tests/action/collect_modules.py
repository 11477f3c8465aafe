"""The collector's modules, imported by their bare names as collect.py imports them (Python
puts the script's folder on sys.path); the folder is appended, so nothing of the program is
shadowed. They are stdlib-only, so importing them runs nothing of the action."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from .action_sandbox import SCRIPTS


def module(name: str) -> ModuleType:
    if str(SCRIPTS) not in sys.path:
        sys.path.append(str(SCRIPTS))
    return importlib.import_module(name)
