"""Credentials never travel as plain config, and are never echoed (hardening, round 2, class 5).

A credential is a config field typed `SecretStr` (the GitHub App's private key, SSH
private keys, the ARC cluster's kubeconfig, every field of a launcher's OCI API key). One
given as plain config is refused before anything registers, with the command that stores
it as a secret. Pulumi marks a whole top-level key secret when any path under it is set
with `--secret` (a stack file's nested `secure:` values), so that is what counts.

And a value under a credential-bearing key (the credential itself, or any key holding
one: `githubApp`, `ociCredentials`, `gpu-ci:runner`) is never shown in an error, whatever
its shape, stored as a secret or not: `[given: [secret]]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

import pulumi
import pytest
import yaml
from pydantic import BaseModel, SecretStr

from components.arc.capacity_config import ArcClusterConfig
from components.arc.launcher_config import OciApiCredentials
from components.arc.scale_set_config import ScaleSet
from components.host.config.host import HostConfig
from components.host.config.runner import GithubAppConfig, RunnerConfig
from components.oci.network_config import NetworkConfig
from components.oci.vm_config import VmCapacityConfig
from core.errors import GpuCiError
from stacks.config import StackConfig, load_config, raw_from_flat
from stacks.config.problems import holds_credential
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO, plan_run
from stacks.program import main
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher, oke
from tests.stacks.stack_helpers import flat, vm_stack

MARK = "plaintextcredential"
"""In every credential below: it must never appear in an error."""
PEM = f"-----BEGIN RSA PRIVATE KEY-----\nMIIE{MARK}\n-----END RSA PRIVATE KEY-----\n"
TOKEN = f"ghp_{MARK}0123456789abcdef"
KUBECONFIG = f"apiVersion: v1\nkind: Config\nusers: [{{name: u, user: {{token: {MARK}}}}}]\n"
OCI_KEY = {
    "user": f"ocid1.user.oc1..aaaa{MARK}",
    "tenancy": f"ocid1.tenancy.oc1..aaaa{MARK}",
    "fingerprint": "a1:b2:c3:d4:e5:f6:a7:b8:c9:d0:e1:f2:a3:b4:c5:d6",
    "privateKey": PEM,
    "region": f"zz-{MARK}-1",
}
SECRET_TEXTS = (MARK, "a1:b2:c3", "ghp_")
APP = {"appId": 1234567, "installationId": 7654321, "privateKey": PEM}
NO_CREDENTIALS = {"githubApp": None, "existingSecret": "github-app"}
OKE = {"cluster": oke()}
"""A cluster created here: neither a kubeconfig nor a reference to read."""
HEADER = "stack 'broken': invalid gpu-ci config ({count}):\n"
FOOTER = (
    "Nothing was created. Fix each key in Pulumi.broken.yaml (or with `pulumi config set "
    "--path`) and run again."
)


def plain(key: str, source: str = "VALUE") -> str:
    """The problem of a credential at `key` given in plain config."""
    return (
        f"{key}: is a credential in plain text: set it with "
        f"`pulumi config set --secret --path {key} {source}`"
    )


def ssh(**host: Any) -> dict[str, Any]:
    return {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "ssh", "address": "gpu1.example.org", "user": "ci", **host},
    }


def runner(**keys: Any) -> dict[str, Any]:
    return vm_stack(
        **{
            "gpu-ci:host": {"target": "oci-vm"},
            "gpu-ci:runner": {"url": "https://github.com/kubeflow", **keys},
        }
    )


def with_oci_key(**fields: Any) -> dict[str, Any]:
    """An arc stack whose only credential is a launcher's OCI API key."""
    scale_set = launcher(ociCredentials={**OCI_KEY, **fields})
    return arc_stack(scale_set, **NO_CREDENTIALS, **OKE)


def expected(*problems: str) -> str:
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    return HEADER.format(count=count) + "".join(f"  - {p}\n" for p in problems) + FOOTER


def refused(values: dict[str, Any], secret: set[str] | None = None) -> tuple[str, list[Any]]:
    """The program's failure for `values` (plain config unless `secret`), and what
    registered before it."""
    registered: list[Registration] = []
    with pytest.raises((GpuCiError, pulumi.RunError)) as failure:
        run_program(
            main,
            project="gpu-ci",
            stack="broken",
            config=flat(values),
            secret_keys=secret or set(),
            registrations=registered,
        )
    return str(failure.value), registered


def assert_nothing_secret_in(message: str) -> None:
    for text in SECRET_TEXTS:
        assert text not in message, (text, message)


# -- (a) a credential in plain config is refused ---------------------------------------------


@dataclass(frozen=True)
class Plain:
    """A config whose credentials are all plain; the problems, sorted by key."""

    id: str
    values: dict[str, Any]
    problems: tuple[str, ...]
    secret: frozenset[str] = field(default_factory=frozenset)
    """The top-level keys a stack file with these set by `--secret` marks secret."""


OCI = "gpu-ci:arc.scaleSets[0].ociCredentials"
PLAIN = [
    Plain(
        "runner-app-key",
        runner(githubApp=APP),
        (plain("gpu-ci:runner.githubApp.privateKey", "< key.pem"),),
        frozenset({"gpu-ci:runner"}),
    ),
    Plain(
        "oci-vm-ssh-key",
        vm_stack(**{"gpu-ci:host": {"target": "oci-vm", "privateKey": PEM}}),
        (plain("gpu-ci:host.privateKey", "< ~/.ssh/id_ed25519"),),
        frozenset({"gpu-ci:host"}),
    ),
    Plain(
        "ssh-host-key",
        ssh(privateKey=PEM),
        (plain("gpu-ci:host.privateKey", "< ~/.ssh/id_ed25519"),),
        frozenset({"gpu-ci:host"}),
    ),
    Plain(
        "ssh-proxy-key",
        ssh(reboot=False, proxy={"address": "bastion.example.org", "user": "j", "privateKey": PEM}),
        (plain("gpu-ci:host.proxy.privateKey", "< ~/.ssh/id_ed25519"),),
        frozenset({"gpu-ci:host"}),
    ),
    Plain(
        "arc-app-key",
        arc_stack(gpu_pod(), **OKE),
        (plain("gpu-ci:arc.githubApp.privateKey", "< key.pem"),),
        frozenset({"gpu-ci:arc"}),
    ),
    Plain(
        "arc-kubeconfig",
        arc_stack(gpu_pod(), **NO_CREDENTIALS, cluster={"kubeconfig": KUBECONFIG}),
        (plain("gpu-ci:arc.cluster.kubeconfig", "< kubeconfig"),),
        frozenset({"gpu-ci:arc"}),
    ),
    Plain(
        "arc-oci-api-key",
        with_oci_key(),
        (
            plain(f"{OCI}.fingerprint"),
            plain(f"{OCI}.privateKey", "< oci_api_key.pem"),
            plain(f"{OCI}.region"),
            plain(f"{OCI}.tenancy"),
            plain(f"{OCI}.user"),
        ),
        frozenset({"gpu-ci:arc"}),
    ),
    Plain(
        "grafana-admin-password",
        {
            **arc_stack(gpu_pod(), **NO_CREDENTIALS, **OKE),
            "gpu-ci:observability": {"grafana": {"adminPassword": f"pw-{MARK}"}},
        },
        (plain("gpu-ci:observability.grafana.adminPassword"),),
        frozenset({"gpu-ci:observability"}),
    ),
    Plain(
        "arc-all-three",
        arc_stack(launcher(ociCredentials=OCI_KEY), cluster={"kubeconfig": KUBECONFIG}),
        (
            plain("gpu-ci:arc.cluster.kubeconfig", "< kubeconfig"),
            plain("gpu-ci:arc.githubApp.privateKey", "< key.pem"),
            plain(f"{OCI}.fingerprint"),
            plain(f"{OCI}.privateKey", "< oci_api_key.pem"),
            plain(f"{OCI}.region"),
            plain(f"{OCI}.tenancy"),
            plain(f"{OCI}.user"),
        ),
        frozenset({"gpu-ci:arc"}),
    ),
]


def test_the_message_for_the_github_app_key_is_the_command_that_fixes_it() -> None:
    assert plain("gpu-ci:runner.githubApp.privateKey", "< key.pem") == (
        "gpu-ci:runner.githubApp.privateKey: is a credential in plain text: set it with "
        "`pulumi config set --secret --path gpu-ci:runner.githubApp.privateKey < key.pem`"
    )


@pytest.mark.parametrize("case", PLAIN, ids=[c.id for c in PLAIN])
def test_a_credential_in_plain_config_is_refused_before_anything_registers(case: Plain) -> None:
    message, registered = refused(case.values)
    assert message == expected(*case.problems)
    assert registered == [], [r.urn for r in registered]
    assert_nothing_secret_in(message)


@pytest.mark.parametrize("case", PLAIN, ids=[c.id for c in PLAIN])
def test_the_same_credentials_stored_as_secrets_are_accepted(case: Plain) -> None:
    run = run_program(
        main, project="gpu-ci", stack="ok", config=flat(case.values), secret_keys=set(case.secret)
    )
    assert run.registrations


def test_every_credential_field_of_the_config_is_in_the_table() -> None:
    """The rule is the field's type: every `SecretStr` under StackConfig is refused in
    plain text. A new credential field joins the table above."""
    covered = {
        re.sub(r"\[\d+\]", "[]", p.split(": ")[0].removeprefix("gpu-ci:"))
        for case in PLAIN
        for p in case.problems
    }
    assert sorted(_credential_fields(StackConfig, "")) == sorted(covered)


def _credential_fields(model: type[BaseModel], path: str) -> set[str]:
    found: set[str] = set()
    for name, info in model.model_fields.items():
        found |= _credentials_in(info.annotation, f"{path}.{name}" if path else name)
    return found


def _credentials_in(annotation: Any, path: str) -> set[str]:
    if annotation is SecretStr:
        return {path}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _credential_fields(annotation, path)
    inner = f"{path}[]" if get_origin(annotation) is list else path
    return {key for arg in get_args(annotation) for key in _credentials_in(arg, inner)}


def test_a_stack_file_with_a_plain_credential_plans_nothing(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    stack = tmp_path / "Pulumi.broken.yaml"
    stack.write_text(yaml.safe_dump({"config": ssh(privateKey=PEM)}))
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        plan_run("broken", tmp_path, registrations=registered)
    assert str(failure.value) == expected(plain("gpu-ci:host.privateKey", "< ~/.ssh/id_ed25519"))
    assert registered == []
    # Set with `pulumi config set --secret --path gpu-ci:host.privateKey < ~/.ssh/id_ed25519`:
    stack.write_text(yaml.safe_dump({"config": ssh(privateKey={"secure": "v1:AAAAciphertext"})}))
    assert plan_run("broken", tmp_path).registrations


@pytest.mark.parametrize(
    "stack", sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))
)
def test_every_example_stack_still_plans(stack: str) -> None:
    """Their credentials are `secure:` values: the top-level keys holding them are secret."""
    assert plan_run(stack).registrations


def test_a_secret_key_in_the_legacy_form_counts() -> None:
    values = flat(runner(githubApp=APP))
    legacy = {k.replace("gpu-ci:", "gpu-ci:config:"): v for k, v in values.items()}
    raw = raw_from_flat(legacy, {"gpu-ci:config:runner"})
    assert raw.secret_keys == {"gpu-ci:runner"}
    assert load_config(raw, "legacy").runner is not None


# -- (b) a value under a credential-bearing key is never echoed ------------------------------


@dataclass(frozen=True)
class Shape:
    """A value of the wrong shape under a credential-bearing key, in plain config."""

    id: str
    values: dict[str, Any]
    problems: tuple[str, ...]


APP_KEY = "gpu-ci:runner.githubApp.privateKey"
SHAPES = [
    Shape(
        "app-key-as-list",
        runner(githubApp={**APP, "privateKey": [TOKEN]}),
        (
            plain(APP_KEY, "< key.pem"),
            f"{APP_KEY}: Input should be a valid string [given: [secret]]",
        ),
    ),
    Shape(
        "app-as-text",
        runner(githubApp=TOKEN),
        (
            "gpu-ci:runner.githubApp: Input should be a valid dictionary or instance of "
            "GithubAppConfig [given: [secret]]",
        ),
    ),
    Shape(
        "runner-as-text",
        {**vm_stack(**{"gpu-ci:host": {"target": "oci-vm"}}), "gpu-ci:runner": TOKEN},
        (
            "gpu-ci:runner: Input should be a valid dictionary or instance of RunnerConfig "
            "[given: [secret]]",
        ),
    ),
    Shape(
        "ssh-key-as-object",
        ssh(privateKey={"pem": TOKEN}),
        (
            plain("gpu-ci:host.privateKey", "< ~/.ssh/id_ed25519"),
            "gpu-ci:host.privateKey: Input should be a valid string [given: [secret]]",
        ),
    ),
    Shape(
        "ssh-key-as-token",
        ssh(privateKey=TOKEN),
        (
            plain("gpu-ci:host.privateKey", "< ~/.ssh/id_ed25519"),
            "gpu-ci:host.privateKey: not a PEM/OpenSSH private key (-----BEGIN ... PRIVATE "
            "KEY-----); set it with `pulumi config set --secret --path <key> < "
            "~/.ssh/id_ed25519` [given: [secret]]",
        ),
    ),
    Shape(
        "proxy-as-text",
        ssh(reboot=False, proxy=TOKEN),
        (
            "gpu-ci:host.proxy: Input should be a valid dictionary or instance of SshProxy "
            "[given: [secret]]",
        ),
    ),
    Shape(
        "oci-key-as-text",
        arc_stack(launcher(ociCredentials=TOKEN), **NO_CREDENTIALS, **OKE),
        (
            f"{OCI}: Input should be a valid dictionary or instance of OciApiCredentials "
            "[given: [secret]]",
        ),
    ),
    Shape(
        "oci-user-as-number",
        with_oci_key(user=12345678),
        (
            plain(f"{OCI}.fingerprint"),
            plain(f"{OCI}.privateKey", "< oci_api_key.pem"),
            plain(f"{OCI}.region"),
            plain(f"{OCI}.tenancy"),
            plain(f"{OCI}.user"),
            f"{OCI}.user: Input should be a valid string [given: [secret]]",
        ),
    ),
    Shape(
        "oci-private-key-as-token",
        with_oci_key(privateKey=TOKEN),
        (
            plain(f"{OCI}.fingerprint"),
            plain(f"{OCI}.privateKey", "< oci_api_key.pem"),
            f"{OCI}.privateKey: not a PEM private key [given: [secret]]",
            plain(f"{OCI}.region"),
            plain(f"{OCI}.tenancy"),
            plain(f"{OCI}.user"),
        ),
    ),
    Shape(
        "scale-set-as-text",
        arc_stack(TOKEN, **NO_CREDENTIALS, **OKE),  # type: ignore[arg-type]
        (
            "gpu-ci:arc.scaleSets[0]: Input should be a valid dictionary or object to extract "
            "fields from [given: [secret]]",
        ),
    ),
    Shape(
        "arc-cluster-as-text",
        arc_stack(gpu_pod(), **NO_CREDENTIALS, cluster=TOKEN),
        (
            "gpu-ci:arc.cluster: Input should be a valid dictionary or instance of "
            "ArcClusterConfig [given: [secret]]",
        ),
    ),
    Shape(
        "kubeconfig-as-list",
        arc_stack(gpu_pod(), **NO_CREDENTIALS, cluster={"kubeconfig": [TOKEN]}),
        (
            plain("gpu-ci:arc.cluster.kubeconfig", "< kubeconfig"),
            "gpu-ci:arc.cluster.kubeconfig: Input should be a valid string [given: [secret]]",
        ),
    ),
    Shape(
        "arc-app-as-text",
        arc_stack(gpu_pod(), **OKE, githubApp=TOKEN),
        (
            "gpu-ci:arc.githubApp: Input should be a valid dictionary or instance of "
            "GithubAppConfig [given: [secret]]",
        ),
    ),
]


@pytest.mark.parametrize("case", SHAPES, ids=[c.id for c in SHAPES])
def test_a_value_of_any_shape_under_a_credential_key_is_never_echoed(case: Shape) -> None:
    message, registered = refused(case.values)
    assert message == expected(*case.problems)
    assert registered == []
    assert_nothing_secret_in(message)


def test_a_scale_set_kind_is_echoed_under_a_secret_key() -> None:
    # Pulumi marks all of gpu-ci:arc secret for the credentials in it: the kind is none.
    values = arc_stack(gpu_pod(kind="gpu-pd"), **OKE)
    message, _ = refused(values, {"gpu-ci:arc"})
    assert message == expected(
        "gpu-ci:arc.scaleSets[0].kind: must be one of 'vm-launcher', 'gpu-pod' (did you mean "
        "'gpu-pod'?) [given: 'gpu-pd']"
    )


def test_outside_credentials_the_value_given_is_still_shown() -> None:
    message, _ = refused(runner(githubApp={**APP, "appId": "my-app"}), {"gpu-ci:runner"})
    # gpu-ci:runner is secret for the App's private key: the App id beside it is shown.
    assert "gpu-ci:runner.githubApp.appId: Input should be a valid integer" in message
    assert "[given: 'my-app']" in message
    assert_nothing_secret_in(message)
    message, _ = refused(ssh(port="twenty-two"))
    assert "gpu-ci:host.port: Input should be a valid integer" in message
    assert "[given: 'twenty-two']" in message


@pytest.mark.parametrize(
    ("annotation", "holds"),
    [
        (GithubAppConfig, True),
        (RunnerConfig, True),
        (OciApiCredentials, True),
        (ArcClusterConfig, True),
        (list[ScaleSet], True),
        (HostConfig, True),
        (NetworkConfig, False),
        (VmCapacityConfig, False),
        (str, False),
    ],
)
def test_one_rule_says_which_keys_hold_a_credential(annotation: Any, holds: bool) -> None:
    assert holds_credential(annotation) is holds


# -- (c) in a stack file, each credential is a secret itself ----------------------------------
# Pulumi marks a whole top-level key secret for one `secure:` value under it, so a plain PEM
# beside a secret one reaches the program as a secret too, while it sits in plain text in a
# committed file. The offline plan (and the PR workflow's `plan --all`) read the file itself:
# there, each credential must be `secure:` (or ESC's `fn::secret`) on its own.

SECURE = {"secure": "v1:AAAAciphertext"}
BESIDE_A_SECRET = [
    pytest.param(
        ssh(
            reboot=False,
            privateKey=PEM,
            proxy={"address": "b.example.org", "user": "j", "privateKey": SECURE},
        ),
        (plain("gpu-ci:host.privateKey", "< ~/.ssh/id_ed25519"),),
        id="host-key-beside-a-secure-proxy-key",
    ),
    pytest.param(
        ssh(
            reboot=False,
            privateKey=SECURE,
            proxy={"address": "b.example.org", "user": "j", "privateKey": PEM},
        ),
        (plain("gpu-ci:host.proxy.privateKey", "< ~/.ssh/id_ed25519"),),
        id="proxy-key-beside-a-secure-host-key",
    ),
    pytest.param(
        arc_stack(
            gpu_pod(), cluster={"kubeconfig": KUBECONFIG}, githubApp={**APP, "privateKey": SECURE}
        ),
        (plain("gpu-ci:arc.cluster.kubeconfig", "< kubeconfig"),),
        id="kubeconfig-beside-a-secure-app-key",
    ),
    pytest.param(
        arc_stack(
            launcher(ociCredentials={**{k: SECURE for k in OCI_KEY}, "privateKey": PEM}),
            **NO_CREDENTIALS,
            **OKE,
        ),
        (plain(f"{OCI}.privateKey", "< oci_api_key.pem"),),
        id="oci-key-beside-its-secure-fields",
    ),
    pytest.param(
        runner(githubApp=APP) | {"gpu-ci:host": {"target": "oci-vm", "privateKey": SECURE}},
        (plain("gpu-ci:runner.githubApp.privateKey", "< key.pem"),),
        id="app-key-in-another-key-than-the-secret",
    ),
]


def _stack_dir(tmp_path: Path, config: dict[str, Any], envs: dict[str, Any] | None = None) -> Path:
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    document: dict[str, Any] = {"config": config}
    if envs:
        document["environment"] = sorted(envs)
    for name, definition in (envs or {}).items():
        path = tmp_path / "esc" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(definition))
    (tmp_path / "Pulumi.broken.yaml").write_text(yaml.safe_dump(document))
    return tmp_path


def _refused_offline(root: Path) -> str:
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        plan_run("broken", root, registrations=registered, notes=[])
    assert registered == []
    message = str(failure.value)
    assert_nothing_secret_in(message)
    assert "Traceback" not in message
    return message


@pytest.mark.parametrize(("values", "problems"), BESIDE_A_SECRET)
def test_a_plain_credential_beside_a_secret_one_is_refused_offline(
    values: dict[str, Any], problems: tuple[str, ...], tmp_path: Path
) -> None:
    assert _refused_offline(_stack_dir(tmp_path, values)) == expected(*problems)


def test_each_credential_secure_on_its_own_plans(tmp_path: Path) -> None:
    values = ssh(
        reboot=False,
        privateKey=SECURE,
        proxy={"address": "b.example.org", "user": "j", "privateKey": SECURE},
    )
    assert plan_run("broken", _stack_dir(tmp_path, values)).registrations


def test_under_pulumi_up_only_top_level_keys_are_known(tmp_path: Path) -> None:
    """What the engine hands the program cannot tell a plain leaf from a secret one: the
    top-level key is secret, so the program itself (not the stack file) accepts it."""
    values = ssh(
        reboot=False,
        privateKey=PEM,
        proxy={"address": "b.example.org", "user": "j", "privateKey": PEM},
    )
    run = run_program(
        main, project="gpu-ci", stack="ok", config=flat(values), secret_keys={"gpu-ci:host"}
    )
    assert run.registrations


def test_the_legacy_key_form_keeps_its_secret_leaves() -> None:
    raw = raw_from_flat(
        {"gpu-ci:config:host": "{}"},
        {"gpu-ci:config:host"},
        secret_leaves={"gpu-ci:config:host.proxy.privateKey"},
        esc_leaves={"gpu-ci:config:host.privateKey": "gpu-ci/dev"},
    )
    assert raw.secret_leaves == frozenset({"gpu-ci:host.proxy.privateKey"})
    assert raw.esc_leaves == {"gpu-ci:host.privateKey": "gpu-ci/dev"}
    assert raw_from_flat({}, set()).secret_leaves is None


ESC_HOST = {"target": "ssh", "address": "gpu1.example.org", "user": "ci", "reboot": False}


def test_a_plain_credential_from_an_esc_environment_is_refused(tmp_path: Path) -> None:
    env = {
        "values": {
            "pulumiConfig": {
                "gpu-ci:host": {
                    "privateKey": PEM,
                    "proxy": {"privateKey": {"fn::secret": "placeholder"}},
                }
            }
        }
    }
    stack = {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {**ESC_HOST, "proxy": {"address": "b.example.org", "user": "j"}},
    }
    message = _refused_offline(_stack_dir(tmp_path, stack, {"gpu-ci/dev": env}))
    assert message == expected(
        "gpu-ci:host.privateKey: is a credential in plain text, given by ESC environment "
        "gpu-ci/dev: make it a secret in the definition that sets it (`fn::secret: ...`, or "
        "`pulumi env set ENV PATH --secret`), or set it here with `pulumi config set "
        "--secret --path gpu-ci:host.privateKey < ~/.ssh/id_ed25519`"
    )


def test_a_plain_credential_of_the_stack_file_beside_an_esc_secret_is_refused(
    tmp_path: Path,
) -> None:
    env: dict[str, Any] = {
        "values": {"pulumiConfig": {"gpu-ci:host": {"privateKey": {"fn::secret": "x"}}}}
    }
    stack: dict[str, Any] = {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {**ESC_HOST, "proxy": {"address": "b", "user": "j", "privateKey": PEM}},
    }
    message = _refused_offline(_stack_dir(tmp_path, stack, {"gpu-ci/dev": env}))
    assert message == expected(plain("gpu-ci:host.proxy.privateKey", "< ~/.ssh/id_ed25519"))
    # Both from ESC, both secrets: it plans.
    env["values"]["pulumiConfig"]["gpu-ci:host"]["proxy"] = {"privateKey": {"fn::secret": "y"}}
    stack["gpu-ci:host"] = {**ESC_HOST, "proxy": {"address": "b", "user": "j"}}
    assert plan_run("broken", _stack_dir(tmp_path, stack, {"gpu-ci/dev": env}), notes=[])
