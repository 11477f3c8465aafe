"""The host step chain: each step's digest covers its script, and every version override a
stack gives reaches the rendered script that installs it (not only the compatibility check).

Each test here kills a mutant of components/host/chain.py that the rest of the suite let
live (`python3 tasks.py mutate components/host/chain.py`).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from components.host.chain import (
    CHAIN_PREFIX,
    PlannedStep,
    bootstrap_steps,
    chain_digest,
    chained,
    host_pins,
)
from components.host.config.host import LocalHost
from components.pins import PINS

SHA_A, SHA_B = "ab" * 32, "cd" * 32
_READONLY = re.compile(r"^readonly ([A-Z_0-9]+)=(.*)$", re.MULTILINE)


def host(**versions: Any) -> LocalHost:
    return LocalHost.model_validate({"target": "local", "versions": versions})


def script_values(versions: dict[str, Any], step: str) -> dict[str, str]:
    """The `readonly NAME=value` parameters of `step`'s rendered script."""
    (found,) = [s for s in bootstrap_steps(host(**versions)) if s.name == step]
    return dict(_READONLY.findall(found.script))


def test_a_steps_digest_covers_its_script() -> None:
    one = PlannedStep("docker", "host", "echo one\n", "bash")
    other = PlannedStep("docker", "host", "echo other\n", "bash")
    (a,), (b,) = chained([one]), chained([other])
    assert a.digest != b.digest
    assert a.digest == chain_digest("", "docker", one.script_sha256, {})
    assert a.stdin == f"echo one\n{CHAIN_PREFIX}{a.digest}\n" != b.stdin


def test_a_script_change_reaches_the_stdin_of_every_later_step() -> None:
    later = PlannedStep("tools", "host", "echo tools\n", "bash")
    first = [PlannedStep("docker", "host", s, "bash") for s in ("echo a\n", "echo b\n")]
    runs = [chained([step, later]) for step in first]
    assert runs[0][1].script == runs[1][1].script
    assert runs[0][1].stdin != runs[1][1].stdin
    assert chained([later], after="x")[0].digest != chained([later])[0].digest


def test_a_step_with_no_digest_is_fed_its_script_alone() -> None:
    assert PlannedStep("docker", "host", "echo\n", "bash").stdin == "echo\n"


def test_the_driver_branch_override_reaches_the_driver_script() -> None:
    values = script_values({"driverBranch": "580-server"}, "nvidia-driver")
    assert values["DRIVER_PACKAGE"] == "nvidia-driver-580-server"
    assert script_values({}, "nvidia-driver")["DRIVER_PACKAGE"] == PINS.driver_package


@pytest.mark.parametrize("tool", ["kind", "kubectl", "helm"])
def test_a_tool_override_reaches_the_tools_script(tool: str) -> None:
    values = script_values({tool: {"version": "1.33.9", "sha256": SHA_A}}, "tools")
    upper = tool.upper()
    assert values[f"{upper}_SHA256"] == SHA_A
    assert "v1.33.9" in values[f"{upper}_URL"]
    default = script_values({}, "tools")
    assert default[f"{upper}_SHA256"] != SHA_A
    assert getattr(PINS, tool).version in default[f"{upper}_URL"]


def test_an_nvkind_binary_is_downloaded_and_a_commit_is_built() -> None:
    url = "https://example.com/nvkind"
    binary = script_values({"nvkind": {"binaryUrl": url, "binarySha256": SHA_B}}, "tools")
    assert (binary["NVKIND_SOURCE"], binary["NVKIND_URL"], binary["NVKIND_SHA256"]) == (
        "binary",
        url,
        SHA_B,
    )
    built = script_values({}, "tools")
    assert built["NVKIND_SOURCE"] == "go"
    assert built["NVKIND_COMMIT"] == PINS.nvkind.commit


def test_an_nvkind_commit_override_reaches_the_tools_script_and_its_version() -> None:
    commit = {"commit": "0123456789abcdef0123456789abcdef01234567", "commitDate": "2025-01-02"}
    values = script_values({"nvkind": commit}, "tools")
    assert values["NVKIND_COMMIT"] == commit["commit"]
    (tools,) = [s for s in bootstrap_steps(host(nvkind=commit)) if s.name == "tools"]
    assert tools.versions["nvkind"] == commit["commit"]
    assert "go" in tools.versions


def test_host_pins_carry_each_override() -> None:
    versions = host(
        driverBranch="580-server",
        toolkit="1.17.8-1",
        kubectl={"version": "1.33.9", "sha256": SHA_A},
    ).versions
    pins = host_pins(versions, "arm64")
    assert pins.driver_branch == "580-server"
    assert pins.toolkit_version == "1.17.8-1"
    assert pins.kubectl.version == "1.33.9"
    assert pins.kubectl.sha256 == {"arm64": SHA_A}
    assert pins.kubectl.source == "stack config"
    assert pins.helm == PINS.helm
