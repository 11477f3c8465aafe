"""The collector's modules (scripts/collect/), imported by their bare names as collect.py
imports them (Python puts the script's folder on sys.path when it runs collect.py), through
configure_in_process's finder for that folder: each runs under the dotted name of its path
from the repository root (`.github.actions.gpu-cluster.scripts.collect.collect_redact`),
the name mutmut gives its mutants, so that `python3 tasks.py mutate` reaches them in this
process, and their imports of one another by bare name get those same modules. They are
stdlib-only (collect_pins aside), so importing them runs nothing of the action."""

from __future__ import annotations

from types import ModuleType

from ..action_sandbox import COLLECT
from ..configure_in_process import load_script


def module(name: str) -> ModuleType:
    """The collector's module `name` (`collect_redact`, `collect_run`, ...)."""
    return load_script(name, COLLECT)
