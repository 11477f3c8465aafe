"""Prometheus itself as the oracle: `promtool test rules` over generated test files.

The promtool of Prometheus v3.11.3, the version the pinned kube-prometheus-stack 84.4.0
deploys (its values.yaml, `prometheus.prometheusSpec.image.tag`), built by
tools/tasks/upstream_tools.py: Prometheus 3's query semantics (left-open range selectors),
not an older promtool's. Missing, it fails or skips as tests/upstream_tools.py says.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from components.observability.queries import PROMQL_SAMPLE_VALUES
from tests.upstream_tools import run_tool

_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


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
    """Run the pinned promtool in `cwd`: whether it passed, and all it printed."""
    done = run_tool("promtool", *args, cwd=cwd, timeout=timeout)
    return done.returncode == 0, done.stdout + done.stderr
