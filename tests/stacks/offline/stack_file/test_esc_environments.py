"""Pulumi ESC environments a stack file imports plan offline from `esc/PROJECT/ENV.yaml`.

The environment's keys merge into the stack's config as the Pulumi CLI merges them (the
stack file's values win; objects merge key by key), `fn::secret` values plan as secret
placeholders, a note says which keys came from where, and what the offline plan cannot
read is refused in one line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core.errors import GpuCiError
from stacks.offline.plan import REPO, plan_run, plan_stack
from stacks.offline.snapshot.recorded import dumps
from stacks.offline.stack_file.read import read_stack_file

SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8Dewg0gHHpsIioWZ2NUIbGuM/IMIfN3OLYDd73YIu t@x"

# One small stack, written two ways: every key in the stack file (the secrets as the
# `secure:` values `pulumi config set --secret` writes), or the OCI region and both private
# keys from the ESC environment gpu-ci/dev.
COMMON = f"""\
  gpu-ci:capacity: vm
  gpu-ci:compartmentId: ocid1.compartment.oc1..aaaaaaaatestcompartment
  gpu-ci:owner: stack-team
  gpu-ci:network:
    sshSourceCidrs: [198.51.100.0/24]
  gpu-ci:vm:
    sshAuthorizedKeys: ["{SSH_KEY}"]
"""
INLINE = f"""\
config:
  oci:region: us-ashburn-1
{COMMON}\
  gpu-ci:host:
    target: oci-vm
    user: ubuntu
    privateKey:
      secure: placeholder-host-key
  gpu-ci:runner:
    url: https://github.com/example
    githubApp:
      appId: 1234567
      installationId: 87654321
      privateKey:
        secure: placeholder-app-key
"""
FROM_ESC = f"""\
environment:
  - gpu-ci/dev
config:
{COMMON}\
  gpu-ci:host:
    target: oci-vm
    user: ubuntu
  gpu-ci:runner:
    url: https://github.com/example
    githubApp:
      appId: 1234567
      installationId: 87654321
"""
# esc/gpu-ci/dev.yaml: the definition as `pulumi env edit gpu-ci/dev` shows it, committed
# with placeholders where the real environment holds the keys.
DEV_ENV = """\
values:
  pulumiConfig:
    oci:region: us-ashburn-1
    gpu-ci:host:
      privateKey:
        fn::secret: placeholder-host-key
    gpu-ci:runner:
      githubApp:
        privateKey:
          fn::secret: placeholder-app-key
"""
NOTE = (
    "note: Pulumi.dev.yaml gets gpu-ci:host.privateKey (secret, offline placeholder), "
    "gpu-ci:runner.githubApp.privateKey (secret, offline placeholder), oci:region from ESC "
    "environment gpu-ci/dev, read offline from esc/gpu-ci/dev.yaml\n"
)


def project(root: Path, stack: str, envs: dict[str, str] | None = None) -> Path:
    """A project in `root`: the checkout's Pulumi.yaml, Pulumi.dev.yaml, and each
    environment's definition at esc/PROJECT/ENV.yaml."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    (root / "Pulumi.dev.yaml").write_text(stack, encoding="utf-8")
    for name, text in (envs or {}).items():
        path = root / "esc" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def plan_cli(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "plan", "dev", "--quiet", "--project-dir", str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def config_of(root: Path) -> dict[str, object]:
    """The stack's config as the program gets it, objects parsed."""
    flat = read_stack_file(root, "dev").config
    return {k: json.loads(v) if v[:1] in "{[" else v for k, v in flat.items()}


def refusal(root: Path) -> str:
    with pytest.raises(GpuCiError) as err:
        read_stack_file(root, "dev")
    return str(err.value)


# -- the environment's keys plan offline ---------------------------------------------------


def test_a_stack_plans_with_its_environments_keys(tmp_path: Path) -> None:
    esc = read_stack_file(project(tmp_path / "esc", FROM_ESC, {"gpu-ci/dev": DEV_ENV}), "dev")
    inline = read_stack_file(project(tmp_path / "inline", INLINE), "dev")
    assert esc.config["oci:region"] == "us-ashburn-1"  # a plain key, as given
    runner = json.loads(esc.config["gpu-ci:runner"])
    assert runner["githubApp"]["privateKey"].startswith(
        "offline-placeholder:gpu-ci:runner.githubApp.privateKey:"
    )
    assert runner["githubApp"]["appId"] == 1234567  # the stack file's keys stay
    # Exactly what the same keys in the stack file give (the placeholder's digest is of the
    # secret's text either way), secrets and all.
    assert esc.config == inline.config
    assert esc.secret_keys == inline.secret_keys == {"gpu-ci:host", "gpu-ci:runner"}


def test_the_plan_is_the_same_and_its_secrets_stay_secret(tmp_path: Path) -> None:
    esc = plan_stack("dev", project(tmp_path / "esc", FROM_ESC, {"gpu-ci/dev": DEV_ENV}))
    inline = plan_stack("dev", project(tmp_path / "inline", INLINE))
    assert dumps(esc) == dumps(inline)
    text = dumps(esc)
    assert "placeholder-app-key" not in text
    assert "placeholder-host-key" not in text
    assert "offline-placeholder" not in text
    key = next(r for r in esc["resources"] if r["name"] == "host-0-runner-github-app-key")
    assert (key["inputs"]["stdin"], key["inputs"]["connection"]) == ("[secret]", "[secret]")


def test_the_plan_says_which_keys_came_from_the_environment(tmp_path: Path) -> None:
    done = plan_cli(project(tmp_path, FROM_ESC, {"gpu-ci/dev": DEV_ENV}))
    assert (done.returncode, done.stderr) == (0, NOTE)
    assert done.stdout == "gpu-ci/dev: 27 resources (offline plan)\n"


def test_plan_run_hands_the_notes_over(tmp_path: Path) -> None:
    notes: list[str] = []
    plan_run("dev", project(tmp_path, FROM_ESC, {"gpu-ci/dev": DEV_ENV}), notes=notes)
    assert notes == [NOTE.removeprefix("note: ").rstrip("\n")]


def test_a_missing_environment_file_is_one_line(tmp_path: Path) -> None:
    done = plan_cli(project(tmp_path, FROM_ESC))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "error: Pulumi.dev.yaml imports ESC environment gpu-ci/dev, which the offline plan "
        "cannot open: put its definition (the YAML `pulumi env edit gpu-ci/dev` shows, with "
        "placeholders for its secrets) in esc/gpu-ci/dev.yaml\n"
    )


def test_a_name_without_a_project_is_in_project_default(tmp_path: Path) -> None:
    stack = "environment: [shared@stable]\nconfig:\n  gpu-ci:owner: team\n"
    message = refusal(project(tmp_path, stack))
    assert message.endswith("in esc/default/shared.yaml")
    shared = "values:\n  pulumiConfig:\n    oci:region: us-phoenix-1\n"
    assert config_of(project(tmp_path, stack, {"default/shared": shared})) == {
        "gpu-ci:owner": "team",
        "oci:region": "us-phoenix-1",
    }


# -- precedence: as the Pulumi CLI merges ------------------------------------------------


def test_the_stack_files_values_win_and_objects_merge_key_by_key(tmp_path: Path) -> None:
    stack = """\
environment: [gpu-ci/dev]
config:
  gpu-ci:owner: stack-team
  gpu-ci:runner:
    url: https://github.com/stack
    githubApp: {appId: 1}
  gpu-ci:vm: [not, an, object]
"""
    env = """\
values:
  pulumiConfig:
    gpu-ci:owner: env-team
    gpu-ci:runner:
      url: https://github.com/env
      group: Default
      githubApp: {appId: 2, installationId: 3}
    gpu-ci:vm: {count: 2}
    owner: ignored-too
"""
    root = project(tmp_path, stack, {"gpu-ci/dev": env})
    assert refusal(root) == (
        "esc/gpu-ci/dev.yaml: values.pulumiConfig gives gpu-ci:owner twice (as gpu-ci:owner "
        "and owner); keep one"
    )
    root = project(tmp_path, stack, {"gpu-ci/dev": env.replace("    owner: ignored-too\n", "")})
    assert config_of(root) == {
        "gpu-ci:owner": "stack-team",
        "gpu-ci:runner": {
            "url": "https://github.com/stack",
            "group": "Default",
            "githubApp": {"appId": 1, "installationId": 3},
        },
        "gpu-ci:vm": ["not", "an", "object"],
    }
    assert read_stack_file(root, "dev").notes == (
        "Pulumi.dev.yaml gets gpu-ci:runner.githubApp.installationId, gpu-ci:runner.group "
        "from ESC environment gpu-ci/dev, read offline from esc/gpu-ci/dev.yaml; "
        "Pulumi.dev.yaml's own gpu-ci:owner, gpu-ci:runner.githubApp.appId, "
        "gpu-ci:runner.url, gpu-ci:vm win over it",
    )


def test_a_stack_files_own_secret_wins_over_the_environments(tmp_path: Path) -> None:
    stack = FROM_ESC.replace(
        "      installationId: 87654321\n",
        "      installationId: 87654321\n      privateKey:\n        secure: the-stacks-own\n",
    )
    esc = read_stack_file(project(tmp_path / "esc", stack, {"gpu-ci/dev": DEV_ENV}), "dev")
    own = read_stack_file(
        project(tmp_path / "own", INLINE.replace("placeholder-app-key", "the-stacks-own")), "dev"
    )
    assert esc.config == own.config
    assert "gpu-ci:runner.githubApp.privateKey win" in esc.notes[0]


def test_later_environments_win_and_imports_go_under(tmp_path: Path) -> None:
    stack = "environment: [gpu-ci/common, gpu-ci/dev]\nconfig:\n  gpu-ci:owner: team\n"
    base = """\
values:
  pulumiConfig:
    oci:region: us-phoenix-1
    gpu-ci:network: {vcnCidr: 10.0.0.0/16, subnetCidr: 10.0.1.0/24}
"""
    common = """\
imports: [gpu-ci/base]
values:
  pulumiConfig:
    gpu-ci:network: {subnetCidr: 10.0.2.0/24}
    gpu-ci:runner: {group: Common}
"""
    dev = "values:\n  pulumiConfig:\n    gpu-ci:runner: {group: Dev}\n"
    root = project(
        tmp_path, stack, {"gpu-ci/base": base, "gpu-ci/common": common, "gpu-ci/dev": dev}
    )
    assert config_of(root) == {
        "gpu-ci:owner": "team",
        "oci:region": "us-phoenix-1",
        "gpu-ci:network": {"vcnCidr": "10.0.0.0/16", "subnetCidr": "10.0.2.0/24"},
        "gpu-ci:runner": {"group": "Dev"},
    }
    assert read_stack_file(root, "dev").notes == (
        "Pulumi.dev.yaml gets gpu-ci:network.subnetCidr from ESC environment gpu-ci/common, "
        "read offline from esc/gpu-ci/common.yaml",
        "Pulumi.dev.yaml gets gpu-ci:network.vcnCidr, oci:region from ESC environment "
        "gpu-ci/base, read offline from esc/gpu-ci/base.yaml",
        "Pulumi.dev.yaml gets gpu-ci:runner from ESC environment gpu-ci/dev, read offline "
        "from esc/gpu-ci/dev.yaml",
    )


def test_secrets_in_lists_and_at_the_top(tmp_path: Path) -> None:
    stack = "environment: [gpu-ci/dev]\nconfig:\n  gpu-ci:owner: team\n"
    env = """\
values:
  pulumiConfig:
    oci:privateKey: {fn::secret: {ciphertext: ZXNjeAAAAAEAAAEA}}
    gpu-ci:tokens: [plain, {fn::secret: hidden}]
    gpu-ci:count: 2.0
    gpu-ci:flag: true
    gpu-ci:text: "costs $${price}"
"""
    file = read_stack_file(project(tmp_path, stack, {"gpu-ci/dev": env}), "dev")
    assert file.config["oci:privateKey"].startswith("offline-placeholder:oci:privateKey:")
    tokens = json.loads(file.config["gpu-ci:tokens"])
    assert tokens[0] == "plain"
    assert tokens[1].startswith("offline-placeholder:gpu-ci:tokens[1]:")
    assert (file.config["gpu-ci:count"], file.config["gpu-ci:flag"]) == ("2", "true")
    assert file.config["gpu-ci:text"] == "costs ${price}"
    assert file.secret_keys == {"oci:privateKey", "gpu-ci:tokens"}
    assert "oci:privateKey (secret, offline placeholder)" in file.notes[0]
    assert "gpu-ci:tokens (its secrets as offline placeholders)" in file.notes[0]


def test_an_environment_that_gives_nothing_says_so(tmp_path: Path) -> None:
    stack = "environment: [gpu-ci/dev]\nconfig:\n  gpu-ci:owner: team\n"
    env = "values:\n  environmentVariables: {A: b}\n"
    assert read_stack_file(project(tmp_path, stack, {"gpu-ci/dev": env}), "dev").notes == (
        "Pulumi.dev.yaml gets nothing from ESC environment gpu-ci/dev (read offline from "
        "esc/gpu-ci/dev.yaml): it sets no values.pulumiConfig here",
    )


# -- refused: what the offline plan (or the CLI) cannot read ---------------------------------

STACK = "environment: [gpu-ci/dev]\nconfig:\n  gpu-ci:owner: team\n"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            "values:\n  pulumiConfig:\n    gpu-ci:runner.githubApp.privateKey: {fn::secret: x}\n",
            "esc/gpu-ci/dev.yaml: values.pulumiConfig key 'gpu-ci:runner.githubApp.privateKey' "
            "is one config key to Pulumi, dots and all (not a path), so the program would get "
            "an unknown key 'runner.githubApp.privateKey'; nest it instead: "
            "gpu-ci:runner: {githubApp: {privateKey: ...}}",
        ),
        (
            "values:\n  pulumiConfig:\n    oci:region: ${oci.region}\n",
            "esc/gpu-ci/dev.yaml: values.pulumiConfig.oci:region interpolates ${oci.region}, "
            "which the offline plan cannot evaluate; write the value itself in this file (a "
            "placeholder under fn::secret, for a secret)",
        ),
        (
            "values:\n  pulumiConfig:\n    oci:auth:\n      fn::open::aws-login: {}\n",
            "esc/gpu-ci/dev.yaml: values.pulumiConfig.oci:auth uses fn::open::aws-login, which "
            "the offline plan cannot evaluate; write the value it gives in this file (a "
            "placeholder under fn::secret, for a secret)",
        ),
        (
            "values:\n  pulumiConfig:\n    oci:key: {fn::secret: [1]}\n",
            "esc/gpu-ci/dev.yaml: values.pulumiConfig.oci:key: fn::secret takes a string "
            "(here, a placeholder), like fn::secret: placeholder",
        ),
        (
            "value:\n  pulumiConfig: {}\n",
            "esc/gpu-ci/dev.yaml: unknown top-level key 'value' (did you mean 'values'?); an "
            "ESC environment definition holds imports and values",
        ),
        (
            "imports: [gpu-ci/dev]\nvalues: {}\n",
            "esc/gpu-ci/dev.yaml: ESC environment imports form a cycle: gpu-ci/dev -> gpu-ci/dev",
        ),
        (
            "values:\n  pulumiConfig:\n    oci:region: a\n    oci:region: b\n",
            "esc/gpu-ci/dev.yaml: key values.pulumiConfig.oci:region is given twice (lines 3 "
            "and 4); keep one",
        ),
    ],
    ids=["dotted-key", "interpolation", "fn-open", "secret-not-text", "typo", "cycle", "twice"],
)
def test_refused(env: str, message: str, tmp_path: Path) -> None:
    assert refusal(project(tmp_path, STACK, {"gpu-ci/dev": env})) == message


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        (
            "gpu-ci/dev",
            "Pulumi.dev.yaml: `environment` must be a list of ESC environment names, like "
            "environment: [gpu-ci/dev]",
        ),
        (
            "[../../etc]",
            "Pulumi.dev.yaml: '../../etc' is not an ESC environment name; write PROJECT/ENV, "
            "like gpu-ci/dev",
        ),
    ],
)
def test_refused_imports(environment: str, message: str, tmp_path: Path) -> None:
    stack = f"environment: {environment}\nconfig:\n  gpu-ci:owner: team\n"
    assert refusal(project(tmp_path, stack)) == message


def test_the_docs_esc_example_plans_with_the_note_it_shows(tmp_path: Path) -> None:
    """docs/getting-started.md's definition of gpu-ci/dev, for Pulumi.dev.yaml without its
    own copies of the keys, plans and prints the note the page shows."""
    readme = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    definition = "#" + readme.split("# The definition of gpu-ci/dev.", 1)[1].split("```", 1)[0]
    shown = readme.split("where its keys came from:\n\n```\n", 1)[1].split("\n```", 1)[0]
    dev = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    del dev["config"]["oci:region"], dev["config"]["gpu-ci:runner"]["githubApp"]["privateKey"]
    root = project(tmp_path, yaml.safe_dump({"environment": ["gpu-ci/dev"], **dev}))
    (root / "esc" / "gpu-ci").mkdir(parents=True)
    (root / "esc" / "gpu-ci" / "dev.yaml").write_text(definition, encoding="utf-8")
    notes: list[str] = []
    plan_run("dev", root, notes=notes)
    assert [f"note: {note}" for note in notes] == [shown]
