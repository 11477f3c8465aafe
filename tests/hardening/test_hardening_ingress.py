"""The world-ingress guard judges what is opened, not how each CIDR is spelled.

`0.0.0.0/1` + `128.0.0.0/1`, `::/1` + `8000::/1`, IPv4-mapped `::ffff:0:0/96` and the like
open a port to the whole internet as surely as `0.0.0.0/0`. The config check
(`gpu-ci:network.sshSourceCidrs`/`apiSourceCidrs`) and the policy rule
(`no-world-open-ingress`) share one judgement, `policy.rules.world_openings`; here each is
run for real: the config through the loader and the program (nothing may register), the
rule over the resources a planned stack registers, with the config check switched off so
that the plan gets as far as the policy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pulumi
import pytest
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    StackValidationArgs,
    StackValidationPolicy,
)

from components.oci import network_config
from core.errors import GpuCiError
from policy import __main__ as pack
from policy.rule import Resource, StackRule
from policy.rules import RULES
from policy.world_openings import world_openings
from stacks.config import ConfigError, load_config, raw_from_flat
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import reveal
from stacks.offline.plan import REPO
from stacks.program import main
from tests.stacks.stack_helpers import SSH_KEY, flat, vm_stack

NSG = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
SECURITY_LIST = "oci:Core/securityList:SecurityList"


def _stack_rule(name: str) -> StackRule:
    [rule] = [r for r in RULES if r.name == name]
    assert isinstance(rule, StackRule)
    return rule


RULE = _stack_rule("no-world-open-ingress")
HINT = "allow the port in the policy config allowedWorldPorts, or narrow the source"
RISK = (
    "list the CIDRs of your admins or deployers, or set allowWorldIngress: true to accept that risk"
)


def ssh_stack(cidrs: list[str], **network: Any) -> dict[str, Any]:
    return vm_stack(**{"gpu-ci:network": {"sshSourceCidrs": cidrs, **network}})


def api_stack(cidrs: list[str]) -> dict[str, Any]:
    """A VM stack with a remote nvkind cluster: the API port opens to `cidrs`."""
    return vm_stack(
        **{
            "gpu-ci:network": {"sshSourceCidrs": ["198.51.100.0/24"], "apiSourceCidrs": cidrs},
            "gpu-ci:vm": {"sshAuthorizedKeys": [SSH_KEY]},
            "gpu-ci:host": {"target": "oci-vm"},
            "gpu-ci:cluster": {"name": "gpu-ci"},
        }
    )


def problems(values: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(raw_from_flat(flat(values), set()), "test")
    return [str(p) for p in caught.value.problems]


def refused_before_anything_registers(values: dict[str, Any]) -> str:
    registered: list[Registration] = []
    with pytest.raises((GpuCiError, pulumi.RunError)) as failure:
        run_program(
            main, project="gpu-ci", stack="test", config=flat(values), registrations=registered
        )
    assert registered == [], [r.urn for r in registered]
    return str(failure.value)


def planned(values: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> ProgramRun:
    """The plan of `values` with the config's world check off, as if it had a hole."""
    monkeypatch.setattr(network_config, "world_openings", lambda cidrs: [])
    return run_program(main, project="gpu-ci", stack="test", config=flat(values))


def resources(run: ProgramRun) -> list[Resource]:
    return [Resource(r.type, r.name, reveal(r.inputs), r.urn) for r in run.registrations]


def nsg(name: str) -> str:
    return f"{name} ({NSG})"


# -- each bypass spelling: the config refuses it, and so does the policy on its plan -------

# (id, values, config problem, policy violations)
BYPASSES: list[tuple[str, dict[str, Any], str, list[str]]] = [
    (
        "ipv4-halves",
        ssh_stack(["0.0.0.0/1", "128.0.0.0/1"]),
        "gpu-ci:network.sshSourceCidrs: 0.0.0.0/1, 128.0.0.0/1 together open the port to the "
        f'whole internet (0.0.0.0/0); {RISK} [given: ["0.0.0.0/1", "128.0.0.0/1"]]',
        [
            f"{nsg('network-ssh-0-0-0-0-1')}, {nsg('network-ssh-128-0-0-0-1')}: TCP port 22 "
            f"open to 0.0.0.0/0 through 0.0.0.0/1, 128.0.0.0/1; {HINT}"
        ],
    ),
    (
        "ipv4-quarters",
        ssh_stack(["10.0.0.0/8", "0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/1"]),
        "gpu-ci:network.sshSourceCidrs: 0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/1 together open the "
        f"port to the whole internet (0.0.0.0/0); {RISK} "
        '[given: ["10.0.0.0/8", "0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/1"]]',
        [
            f"{nsg('network-ssh-0-0-0-0-2')}, {nsg('network-ssh-64-0-0-0-2')}, "
            f"{nsg('network-ssh-128-0-0-0-1')}: TCP port 22 open to 0.0.0.0/0 through "
            f"0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/1; {HINT}"
        ],
    ),
    (
        "ipv6-halves",
        ssh_stack(["::/1", "8000::/1"]),
        "gpu-ci:network.sshSourceCidrs: ::/1, 8000::/1 together open the port to the whole "
        f'internet (::/0); {RISK} [given: ["::/1", "8000::/1"]]',
        [
            f"{nsg('network-ssh-1')}, {nsg('network-ssh-8000-1')}: TCP port 22 open to ::/0 "
            f"through ::/1, 8000::/1; {HINT}"
        ],
    ),
    (
        "ipv4-mapped",
        ssh_stack(["::ffff:0:0/96"]),
        "gpu-ci:network.sshSourceCidrs: ::ffff:0:0/96 opens the port to the whole internet "
        f'(0.0.0.0/0); {RISK} [given: ["::ffff:0:0/96"]]',
        [
            f"{nsg('network-ssh-ffff-0-0-96')}: TCP port 22 open to 0.0.0.0/0 through "
            f"::ffff:0:0/96; {HINT}"
        ],
    ),
    (
        "ipv4-half-and-mapped-half",
        ssh_stack(["0.0.0.0/1", "::ffff:128.0.0.0/97"]),
        "gpu-ci:network.sshSourceCidrs: 0.0.0.0/1, ::ffff:8000:0/97 together open the port to "
        f'the whole internet (0.0.0.0/0); {RISK} [given: ["0.0.0.0/1", "::ffff:128.0.0.0/97"]]',
        [
            f"{nsg('network-ssh-0-0-0-0-1')}, {nsg('network-ssh-ffff-8000-0-97')}: TCP port 22 "
            f"open to 0.0.0.0/0 through 0.0.0.0/1, ::ffff:8000:0/97; {HINT}"
        ],
    ),
    (
        "6to4",
        ssh_stack(["2002::/16"]),
        "gpu-ci:network.sshSourceCidrs: 2002::/16 opens the port to the whole internet "
        f'(0.0.0.0/0); {RISK} [given: ["2002::/16"]]',
        [f"{nsg('network-ssh-2002-16')}: TCP port 22 open to 0.0.0.0/0 through 2002::/16; {HINT}"],
    ),
    (
        "api-ipv6-halves",
        api_stack(["::/1", "8000::/1"]),
        "gpu-ci:network.apiSourceCidrs: ::/1, 8000::/1 together open the port to the whole "
        f'internet (::/0); {RISK} [given: ["::/1", "8000::/1"]]',
        [
            f"{nsg('network-api-1')}, {nsg('network-api-8000-1')}: TCP port 6443 open to ::/0 "
            f"through ::/1, 8000::/1; {HINT}"
        ],
    ),
]
IDS = [b[0] for b in BYPASSES]


@pytest.mark.parametrize(("values", "problem"), [b[1:3] for b in BYPASSES], ids=IDS)
def test_the_config_refuses_each_spelling_of_the_world(
    values: dict[str, Any], problem: str
) -> None:
    assert problems(values) == [problem]
    assert problem in refused_before_anything_registers(values)


@pytest.mark.parametrize(("values", "violations"), [(b[1], b[3]) for b in BYPASSES], ids=IDS)
def test_the_policy_refuses_each_spelling_on_the_planned_stack(
    values: dict[str, Any], violations: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stack = resources(planned(values, monkeypatch))
    assert RULE(stack) == violations
    assert RULE(stack, {"allowedWorldPorts": [22, 6443]}) == []


@pytest.mark.parametrize(("values", "violations"), [(b[1], b[3]) for b in BYPASSES], ids=IDS)
def test_the_pack_reports_each_spelling_against_a_resource_that_opens(
    values: dict[str, Any], violations: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through pulumi-policy's own StackValidationPolicy, as `pulumi preview` runs it."""
    run = planned(values, monkeypatch)
    options = PolicyResourceOptions(False, [], False, [], PolicyCustomTimeouts(0, 0, 0), [])
    stack = [
        PolicyResource(r.type, reveal(r.inputs), r.urn, r.name, options, None, None, [], {})
        for r in run.registrations
    ]
    [policy] = [p for p in pack.policies() if p.name == RULE.name]
    assert isinstance(policy, StackValidationPolicy)
    reported: list[tuple[str, str | None]] = []
    policy.validate(StackValidationArgs(stack, {}), lambda m, urn: reported.append((m, urn)))
    assert [m for m, _ in reported] == violations
    first = violations[0].split(" (", 1)[0]
    assert [urn for _, urn in reported] == [run.urn_of(first)]


def test_allow_world_ingress_still_accepts_any_spelling_but_the_policy_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    values = ssh_stack(["0.0.0.0/1", "128.0.0.0/1"], allowWorldIngress=True)
    cfg = load_config(raw_from_flat(flat(values), set()), "test")
    assert cfg.network.sshSourceCidrs == ["0.0.0.0/1", "128.0.0.0/1"]
    run = run_program(main, project="gpu-ci", stack="test", config=flat(values))
    assert len(RULE(resources(run))) == 1


@pytest.mark.parametrize(
    "cidrs",
    [
        ["0.0.0.0/1"],
        ["0.0.0.0/1", "128.0.0.0/2"],
        ["8000::/1", "4000::/2"],
        ["::ffff:0:0/97"],
        ["2002::/17", "2001:db8::/32"],
        ["198.51.100.0/24", "2001:db8::/32"],
        ["10.0.0.0/8", "fd00::/8"],
    ],
)
def test_what_leaves_some_of_the_internet_out_passes_both(
    cidrs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    values = ssh_stack(cidrs)
    load_config(raw_from_flat(flat(values), set()), "test")
    assert RULE(resources(planned(values, monkeypatch))) == []


# -- duplicates and host bits ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("cidrs", "problem"),
    [
        (
            ["198.51.100.0/24", "203.0.113.0/24", "198.51.100.0/24"],
            "lists 198.51.100.0/24 more than once (compared normalised); each CIDR becomes one "
            "NSG rule named after it, so list each once "
            '[given: ["198.51.100.0/24", "203.0.113.0/24", "198.51.100.0/24"]]',
        ),
        (
            ["2001:DB8::/32", "2001:db8:0::/32"],
            "lists 2001:db8::/32 more than once (compared normalised); each CIDR becomes one "
            'NSG rule named after it, so list each once [given: ["2001:DB8::/32", '
            '"2001:db8:0::/32"]]',
        ),
        (
            ["0.0.0.0/0", "0.0.0.0/0"],
            "lists 0.0.0.0/0 more than once (compared normalised); each CIDR becomes one NSG "
            'rule named after it, so list each once [given: ["0.0.0.0/0", "0.0.0.0/0"]]',
        ),
    ],
    ids=["same", "two-spellings", "world-twice"],
)
def test_a_cidr_listed_twice_is_refused(cidrs: list[str], problem: str) -> None:
    for allow in (False, True):  # a duplicate is refused even where the world is allowed
        values = ssh_stack(cidrs, allowWorldIngress=allow)
        assert problems(values) == [f"gpu-ci:network.sshSourceCidrs: {problem}"]
        refused_before_anything_registers(values)


def test_host_bits_are_refused() -> None:
    values = ssh_stack(["198.51.100.0/24", "10.0.0.1/24"])
    assert problems(values) == [
        "gpu-ci:network.sshSourceCidrs[1]: '10.0.0.1/24' is not a CIDR block like 10.0.0.0/16 "
        "(10.0.0.1/24 has host bits set) [given: '10.0.0.1/24']"
    ]
    refused_before_anything_registers(values)


# -- the rule over the union of NSG rules and security lists ------------------------------


def rule(
    name: str, source: str, protocol: str = "6", ports: tuple[int, int] | None = (22, 22)
) -> Resource:
    props: dict[str, Any] = {"direction": "INGRESS", "protocol": protocol, "source": source}
    if ports is not None and protocol in ("6", "17"):
        key = "tcpOptions" if protocol == "6" else "udpOptions"
        props[key] = {"destinationPortRange": {"min": ports[0], "max": ports[1]}}
    return Resource(NSG, name, props, f"urn:{name}")


def security_list(name: str, *entries: dict[str, Any]) -> Resource:
    return Resource(SECURITY_LIST, name, {"ingressSecurityRules": list(entries)}, f"urn:{name}")


def test_an_nsg_rule_and_a_security_list_open_the_world_together() -> None:
    listed = security_list(
        "list", {"protocol": "6", "source": "0.0.0.0/1", "tcpOptions": {"min": 1, "max": 65535}}
    )
    assert RULE([listed, rule("b", "128.0.0.0/1")]) == [
        f"list ({SECURITY_LIST}), {nsg('b')}: TCP port 22 open to 0.0.0.0/0 through "
        f"0.0.0.0/1, 128.0.0.0/1; {HINT}"
    ]


def test_an_all_protocol_rule_counts_for_every_port() -> None:
    assert RULE([rule("a", "0.0.0.0/1", protocol="all"), rule("b", "128.0.0.0/1")]) == [
        f"{nsg('a')}, {nsg('b')}: TCP port 22 open to 0.0.0.0/0 through 0.0.0.0/1, "
        f"128.0.0.0/1; {HINT}"
    ]
    assert RULE([rule("a", "0.0.0.0/1", protocol="all"), rule("b", "128.0.0.0/1", "all")]) == [
        f"{nsg('a')}, {nsg('b')}: all protocols open to 0.0.0.0/0 through 0.0.0.0/1, "
        f"128.0.0.0/1; {HINT}"
    ]


def test_only_the_ports_both_halves_open_are_reported() -> None:
    halves = [rule("a", "0.0.0.0/1", ports=(20, 25)), rule("b", "128.0.0.0/1", ports=(22, 30))]
    assert RULE(halves) == [
        f"{nsg('a')}, {nsg('b')}: TCP port 22-25 open to 0.0.0.0/0 through 0.0.0.0/1, "
        f"128.0.0.0/1; {HINT}"
    ]
    assert RULE(halves, {"allowedWorldPorts": [22, 23, 24, 25]}) == []
    apart = [rule("a", "0.0.0.0/1", ports=(22, 22)), rule("b", "128.0.0.0/1", ports=(23, 23))]
    assert RULE(apart) == []
    tcp_udp = [rule("a", "0.0.0.0/1"), rule("b", "128.0.0.0/1", protocol="17")]
    assert RULE(tcp_udp) == []


def test_every_port_of_a_world_rule_is_one_violation() -> None:
    assert RULE([rule("a", "::/0", ports=None), rule("b", "0.0.0.0/0", ports=None)]) == [
        f"{nsg('b')}: every TCP port open to 0.0.0.0/0; {HINT}",
        f"{nsg('a')}: every TCP port open to ::/0; {HINT}",
    ]


def test_sources_that_are_no_cidr_are_not_networks() -> None:
    labels = [
        rule("a", "all-iad-services-in-oracle-services-network"),
        rule("b", "ocid1.networksecuritygroup.oc1..aaaa"),
        rule("c", "[unknown]"),
    ]
    assert RULE(labels) == []


# -- one judgement, two places ---------------------------------------------------------------


@pytest.mark.parametrize(
    "cidrs",
    [
        ["0.0.0.0/0"],
        ["::/0"],
        ["0.0.0.0/1", "128.0.0.0/1"],
        ["0.0.0.0/1", "128.0.0.0/2"],
        ["::/1", "8000::/1"],
        ["::ffff:0:0/96"],
        ["::ffff:0:0/97"],
        ["::/64"],
        ["::/1"],
        ["8000::/1", "4000::/2"],
        ["2000::/3"],
        ["2002::/17", "0.0.0.0/1"],
        ["2002:8000::/17", "0.0.0.0/1"],
        ["198.51.100.0/24"],
    ],
)
def test_the_config_and_the_policy_agree(cidrs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    values = ssh_stack(cidrs)
    try:
        load_config(raw_from_flat(flat(values), set()), "test")
        config_refuses = False
    except ConfigError:
        config_refuses = True
    policy_refuses = RULE(resources(planned(values, monkeypatch))) != []
    assert config_refuses == policy_refuses == bool(world_openings(cidrs))


def test_the_policy_rules_import_nothing_but_the_standard_library() -> None:
    """The pack runs in its own virtualenv (pulumi, pulumi-policy): `policy.rules` must
    import none of the project's config code, nor pydantic, for the config to share it."""
    code = (
        "import json, sys; import policy.rules; "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(done.stdout))
    assert loaded & {"stacks", "components", "pydantic", "pulumi", "pulumi_policy"} == set()
