"""A generated hostile corpus: random mutations of the example stacks, planned for real.

Each example is a mutation of one example stack file: a value somewhere in its config is
replaced by something hostile or odd (shell metacharacters, newlines, quotes, huge or
negative numbers, wrong types, nulls, world-open CIDRs, marked fake credentials), a key is
removed, or an unknown key is added. Every one must either plan, or stop with one message
(a `GpuCiError` or `pulumi.RunError`): never a traceback, never an echoed credential, and
when the config itself is refused, never a registered resource before it.

Hypothesis runs it derandomized (a fixed seed) with a fixed budget, so CI sees the same
corpus on every run; `GPU_CI_CORPUS_EXAMPLES` raises the budget for a deeper local search.
"""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import GpuCiError
from stacks.config.loader import ConfigError
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO, plan_run

STACKS = ("dev", "gpu-dev", "apps-dev", "arc", "workstation")
MARKER = "gpucicorpussecret7f3a"
"""Part of every fake credential the corpus writes: it must never appear in a message."""
EXAMPLES = int(os.environ.get("GPU_CI_CORPUS_EXAMPLES", "40"))

HOSTILE_TEXT = [
    "$(touch /tmp/PWNED)",
    "`id`",
    "a'b",
    'a"b',
    "gpu\n",
    "line\nExecStartPre=/bin/sh -c id",
    "\r\v",
    "",
    " ",
    "x" * 300,
    "../../etc/passwd",
    "/",
    "0.0.0.0/1",
    "::ffff:0:0/96",
    "10.0.0.1/24",
    "ocid1.compartment.oc1..$(id)",
    "https://github.com/enterprises/",
    "kindest/node:v9.99.0",
    "ünïcødé",
    "\x00",
    f"-----BEGIN RSA PRIVATE KEY-----\n{MARKER}\n-----END RSA PRIVATE KEY-----\n",
    f"ghp_{MARKER}0123456789abcdef",
]
HOSTILE = st.one_of(
    st.sampled_from(HOSTILE_TEXT),
    st.sampled_from([None, True, False, 0, -1, 2**63, 1.5, [], {}, ["a", "b"], {"k": "v"}]),
    st.text(max_size=12),
    st.integers(min_value=-(10**6), max_value=10**6),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a stack's config (mappings and lists)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _config(stack: str) -> dict[str, Any]:
    document = yaml.safe_load((REPO / f"Pulumi.{stack}.yaml").read_text())
    config: dict[str, Any] = document["config"]
    return config


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    """(stack, its config mutated, what was done) for one corpus entry."""
    stack = draw(st.sampled_from(STACKS))
    config = copy.deepcopy(_config(stack))
    paths = _paths(config)
    path = draw(st.sampled_from(paths))
    kind = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add"]))
    parent: Any = config
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if kind == "replace":
        parent[last] = draw(HOSTILE)
    elif kind == "delete" and isinstance(parent, dict):
        del parent[last]
    elif kind == "delete":
        parent.pop(last)
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["extra", "gpu-ci:extra", "secure", "Count"]))] = draw(HOSTILE)
    else:
        parent.append(draw(HOSTILE))
    return stack, config, f"{kind} {'.'.join(map(str, path))}"


def _write(project: Path, stack: str, config: dict[str, Any]) -> None:
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    shutil.copy(REPO / "Pulumi.yaml", project)
    for other in REPO.glob("Pulumi.*.yaml"):
        shutil.copy(other, project)
    document = yaml.safe_load((REPO / f"Pulumi.{stack}.yaml").read_text())
    document["config"] = config
    (project / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump(document, sort_keys=False))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corpus") / "project"


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(entry=mutations())
def test_every_mutated_stack_plans_or_stops_with_one_message(
    entry: tuple[str, dict[str, Any], str], project: Path
) -> None:
    stack, config, what = entry
    _write(project, stack, config)
    seen: list[Registration] = []
    try:
        plan_run(stack, project, registrations=seen)
    except (GpuCiError, pulumi.RunError) as err:
        message = str(err)
        assert message.strip(), what
        assert "Traceback" not in message and 'File "' not in message, (what, message)
        assert MARKER not in message, (what, message)
        if isinstance(err, ConfigError) or "invalid gpu-ci config" in message:
            assert seen == [], (what, [r.urn for r in seen][:3])
    # anything else (a KeyError, a pydantic ValidationError, a TypeError) fails the test


def test_a_credential_pasted_under_the_wrong_key_is_not_printed(tmp_path: Path) -> None:
    """Found by the corpus: a validator quoting the value it refuses printed a PEM key
    given as an availability domain."""
    config = _config("dev")
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{MARKER}\n-----END RSA PRIVATE KEY-----\n"
    config["gpu-ci:vm"]["availabilityDomains"] = [pem]
    config["gpu-ci:network"]["sshSourceCidrs"] = [f"ghp_{MARKER}0123456789"]
    _write(tmp_path / "project", "dev", config)
    with pytest.raises(pulumi.RunError) as failure:
        plan_run("dev", tmp_path / "project")
    message = str(failure.value)
    assert MARKER not in message
    assert "gpu-ci:vm.availabilityDomains[0]: '[private key]' is neither an index" in message
    assert "gpu-ci:network.sshSourceCidrs" in message and "[credential]" in message
