"""Prometheus itself as the oracle: `promtool test rules` over generated test files.

Debian's `prometheus` package ships promtool (`.ci/run` installs it; 2.42 on Debian 12). The
tests need it: without it they fail where CI runs (`GPU_CI_REQUIRE_UPSTREAM=1` or `CI` set)
and skip, saying why, elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.observability.queries import PROMQL_SAMPLE_VALUES

_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def promtool_path() -> str:
    path = shutil.which("promtool")
    if path is None:
        why = "promtool not found: install Debian's `prometheus` package (.ci/run does)"
        if os.environ.get("GPU_CI_REQUIRE_UPSTREAM") == "1" or os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return path


def substitute(expr: str, **values: str) -> str:
    """Grafana's variables replaced as Grafana replaces them before Prometheus sees a query:
    `$__range` everywhere, `$scale_set` (a regex) inside label matchers' strings."""
    given = {**PROMQL_SAMPLE_VALUES, **{f"${k}": v for k, v in values.items()}}
    out, pos = [], 0
    for match in _STRING.finditer(expr):
        out.append(_code(expr[pos : match.start()], given))
        out.append(match.group(0).replace("$scale_set", given["$scale_set"]))
        pos = match.end()
    out.append(_code(expr[pos:], given))
    return "".join(out)


def _code(code: str, given: dict[str, str]) -> str:
    code = code.replace("$__range", given["$__range"])
    assert "$" not in code, f"an unknown Grafana variable in {code!r}"
    return code


def run(
    tmp_path: Path, tests: list[dict[str, Any]], groups: list[dict[str, Any]] | None = None
) -> str:
    """Run promtool over `tests` (and the rule `groups`, as a PrometheusRule's spec holds them);
    the output, asserting promtool passed."""
    ok, output = outcome(tmp_path, tests, groups)
    assert ok, output
    return output


def outcome(
    tmp_path: Path, tests: list[dict[str, Any]], groups: list[dict[str, Any]] | None = None
) -> tuple[bool, str]:
    rule_files = []
    if groups is not None:
        rules = tmp_path / "rules.yaml"
        rules.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False))
        rule_files = [rules.name]
    test_file = tmp_path / "tests.yaml"
    test_file.write_text(
        yaml.safe_dump(
            {"rule_files": rule_files, "evaluation_interval": "1m", "tests": tests},
            sort_keys=False,
        )
    )
    return _promtool(tmp_path, "test", "rules", test_file.name, timeout=120)


def check_rules(tmp_path: Path, groups: list[dict[str, Any]]) -> tuple[bool, str]:
    """`promtool check rules`: Prometheus's rule file parser (rulefmt), which the operator's
    admission webhook also runs on a PrometheusRule's groups."""
    rules = tmp_path / "check.yaml"
    rules.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False))
    return _promtool(tmp_path, "check", "rules", rules.name, timeout=60)


def _promtool(cwd: Path, *args: str, timeout: int) -> tuple[bool, str]:
    """Run promtool in `cwd`: whether it passed, and all it printed."""
    done = subprocess.run(
        [promtool_path(), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.returncode == 0, done.stdout + done.stderr
