"""Keys outside `gpu-ci:` are checked against what reads them (issue #27, item 6).

`oci:regoin` used to plan with rc 0 and not a word. A key in a provider's namespace is now
checked against that provider's config keys, read from its installed SDK; pulumi-oci and
pulumi-random (bridged from Terraform) refuse a key they lack when Pulumi configures them,
so it is a problem before anything registers; in the other namespaces an unknown key is one
warning, printed as `pulumi preview` prints the program's warnings (`warning: ...`).
"""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
from pathlib import Path

import pytest

from stacks.config import ConfigError, RawConfig, load_config, raw_from_flat
from stacks.config.namespaces import (
    PULUMI_KEYS,
    REFUSES_UNKNOWN_KEYS,
    _provider_args,
    check_other_keys,
    provider_keys,
    provider_packages,
)
from stacks.offline.engine.mocks import run_program
from stacks.offline.plan import REPO
from stacks.program import main
from tests.stacks.stack_helpers import cli, flat, vm_stack

OCI_LABEL = f"pulumi-oci {provider_packages()['oci'].version}"
K8S_LABEL = f"pulumi-kubernetes {provider_packages()['kubernetes'].version}"
COMMAND_LABEL = f"pulumi-command {provider_packages()['command'].version}"
READERS = "gpu-ci:, pulumi:, command:, kubernetes:, oci:, random:"


def plan(root: Path, extra: str) -> subprocess.CompletedProcess[str]:
    """`python -m stacks plan dev` of the dev stack with `extra` lines in its config."""
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    text = (REPO / "Pulumi.dev.yaml").read_text()
    assert text.count("  oci:region: us-ashburn-1\n") == 1
    text = text.replace("  oci:region: us-ashburn-1\n", extra)
    (root / "Pulumi.dev.yaml").write_text(text)
    return cli("plan", "dev", "--project-dir", root, "--quiet")


def warnings_of(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("warning: ")]


# -- through the offline plan, as a user runs it ---------------------------------------------


def test_a_misspelt_oci_key_is_refused_with_the_key_it_meant(tmp_path: Path) -> None:
    done = plan(tmp_path, "  oci:regoin: us-ashburn-1\n")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: stack 'dev': invalid config (1 problem):\n"
        f"  - oci:regoin: not a config key of {OCI_LABEL} (did you mean 'oci:region'?); the "
        "oci provider refuses a key it does not define when Pulumi configures it, so `pulumi "
        "up` would fail there\n"
        "Nothing was created. Fix each key in Pulumi.dev.yaml (or with `pulumi config set "
        "--path`) and run again.\n"
    )


def test_every_other_slip_is_one_warning_and_the_plan_goes_on(tmp_path: Path) -> None:
    extra = (
        "  oci:region: us-ashburn-1\n"
        "  oci:privateKey:\n    secure: v1:PLACEHOLDER:oci-key\n"  # a valid key, secret
        "  kubernetes:kubeconfig: ~/.kube/config\n"
        "  kubernetes:kubeconfg: ~/.kube/config\n"
        "  command:shell: bash\n"
        "  ocii:region: us-ashburn-1\n"
        "  aws:region: us-east-1\n"
        "  pulumi:tags: {team: gpu-ci}\n"
        "  pulumi:disable-default-providers: []\n"
        "  pulumi:autonaming: {mode: verbatim}\n"
        "  pulumi:tag: {team: gpu-ci}\n"
    )
    done = plan(tmp_path, extra)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gpu-ci/dev: ")
    assert warnings_of(done) == [  # each once: the check before the run leaves them to it
        f"warning: aws:region: no package of this program reads the aws: namespace (it reads "
        f"{READERS}); it is ignored",
        f"warning: command:shell: {COMMAND_LABEL} takes no config keys; it is ignored",
        f"warning: kubernetes:kubeconfg: not a config key of {K8S_LABEL} (did you mean "
        "'kubernetes:kubeconfig'?); it is ignored",
        f"warning: ocii:region: no package of this program reads the ocii: namespace (it reads "
        f"{READERS}) (did you mean 'oci:region'?); it is ignored",
        "warning: pulumi:tag: not a key the Pulumi CLI reads (pulumi:autonaming, "
        "pulumi:disable-default-providers, pulumi:tags) (did you mean 'pulumi:tags'?); it is "
        "ignored",
    ]


def test_a_failing_config_lists_the_warnings_in_its_message(tmp_path: Path) -> None:
    """The stack file's namespace misspelt: no gpu-ci key, and the key it meant."""
    text = (REPO / "Pulumi.workstation.yaml").read_text().replace("gpu-ci:", "gpu-cj:")
    shutil.copy(REPO / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "Pulumi.workstation.yaml").write_text(text)
    done = cli("plan", "workstation", "--project-dir", tmp_path)
    assert done.returncode == 2
    assert "  - gpu-ci: no gpu-ci:* key is set" in done.stderr
    assert (
        "\nwarning: gpu-cj:host: no package of this program reads the gpu-cj: namespace (it "
        f"reads {READERS}) (did you mean 'gpu-ci:host'?); it is ignored\n"
    ) in done.stderr


# -- the checks themselves -------------------------------------------------------------------


def test_a_random_key_is_refused_and_a_kubernetes_key_only_warned() -> None:
    found = check_other_keys(["random:length", "kubernetes:namespce", "kubernetes:context"])
    assert [p.key for p in found.problems] == ["random:length"]
    assert found.problems[0].message.startswith(
        f"pulumi-random {provider_packages()['random'].version} takes no config keys; the "
        "random provider refuses a key"
    )
    assert found.warnings == [
        f"kubernetes:namespce: not a config key of {K8S_LABEL} (did you mean "
        "'kubernetes:namespace'?); it is ignored"
    ]


def test_an_unknown_key_far_from_every_key_lists_what_the_provider_takes() -> None:
    [problem] = check_other_keys(["oci:zone"]).problems
    assert f"not a config key of {OCI_LABEL}; it has auth, configFileProfile," in problem.message
    assert "region, retriesConfigFile" in problem.message


def test_the_legacy_config_form_is_the_same_key() -> None:
    assert check_other_keys(["oci:config:region", "pulumi:config:tags"]) == check_other_keys([])


def test_valid_and_documented_keys_are_silent_and_one_slip_is_not() -> None:
    values = vm_stack(
        **{
            "oci:region": "us-ashburn-1",
            "oci:tenancyOcid": "ocid1.tenancy.oc1..aaaa",
            "kubernetes:enableServerSideApply": "true",
            "pulumi:disable-default-providers": ["random"],
            "pulumi:tags": {"team": "gpu-ci"},
            "pulumi:autonaming": {"mode": "verbatim"},
            "oci:Region": "us-ashburn-1",  # a case slip is a slip
        }
    )
    raw = raw_from_flat(flat(values), set())
    with pytest.raises(ConfigError) as caught:
        load_config(raw, "test")
    assert [str(p) for p in caught.value.problems] == [
        f"oci:Region: not a config key of {OCI_LABEL} (did you mean 'oci:region'?); the oci "
        "provider refuses a key it does not define when Pulumi configures it, so `pulumi up` "
        "would fail there"
    ]
    assert caught.value.warnings == []
    del values["oci:Region"]
    assert check_other_keys(raw_from_flat(flat(values), set()).other_keys).warnings == []
    load_config(raw_from_flat(flat(values), set()), "test")


def test_a_valid_config_warns_in_the_run_and_not_before_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    values = vm_stack(**{"oci:region": "us-ashburn-1", "aws:region": "us-east-1"})
    load_config(raw_from_flat(flat(values), set()), "test")  # outside a run: no output
    assert capsys.readouterr() == ("", "")
    run = run_program(main, project="gpu-ci", stack="test", config=flat(values))
    warned = [message for level, message in run.logs if level == "warning"]
    assert [w for w in warned if w.startswith("aws:")] == [
        f"aws:region: no package of this program reads the aws: namespace (it reads {READERS})"
        "; it is ignored"
    ]


def test_a_config_without_other_keys_checks_none() -> None:
    assert RawConfig({}).other_keys == frozenset()
    assert raw_from_flat({"gpu-ci:capacity": "none", "oci:x": "1"}, set()).other_keys == {"oci:x"}


# -- the key lists are the installed SDKs' ---------------------------------------------------


def test_the_provider_namespaces_are_the_installed_provider_packages() -> None:
    packages = provider_packages()
    assert sorted(packages) == ["command", "kubernetes", "oci", "random"]
    for namespace, package in packages.items():
        module = importlib.import_module(package.path.name)
        assert Path(module.__file__ or "").parent == package.path, namespace
    assert set(packages) >= REFUSES_UNKNOWN_KEYS
    assert "pulumi_policy" not in {p.path.name for p in packages.values()}  # no resource plugin


@pytest.mark.parametrize("namespace", ["oci", "kubernetes", "command", "random"])
def test_each_providers_keys_are_its_provider_args_as_pulumi_names_them(namespace: str) -> None:
    """Both places of an SDK agree: config/vars.py (oci) and ProviderArgs, as imported."""
    package = provider_packages()[namespace]
    provider = importlib.import_module(f"{package.path.name}.provider")
    names = {
        getattr(prop.fget, "_pulumi_name", None)
        for prop in vars(provider.ProviderArgs).values()
        if isinstance(prop, property)
    }
    assert provider_keys(package.path) == names
    assert (namespace == "oci") == (package.path / "config" / "vars.py").is_file()


def test_the_oci_keys_include_what_the_stack_files_set() -> None:
    keys = provider_keys(provider_packages()["oci"].path)
    assert {"region", "privateKey", "tenancyOcid", "userOcid", "fingerprint"} <= keys
    assert "regoin" not in keys


def test_provider_args_are_read_by_their_pulumi_names() -> None:
    source = (
        "class ProviderArgs:\n"
        "    @property\n    @pulumi.getter\n    def cluster(self): ...\n"
        "    @property\n    @pulumi.getter(name='kubeClientSettings')\n"
        "    def kube_client_settings(self): ...\n"
        "    @cluster.setter\n    def cluster(self, value): ...\n"
        "    def helper(self): ...\n"
        "class Other:\n    @pulumi.getter\n    def other(self): ...\n"
    )
    ast.parse(source)
    assert _provider_args(source) == {"cluster", "kubeClientSettings"}


def test_the_pulumi_keys_are_the_documented_ones() -> None:
    assert PULUMI_KEYS == ("autonaming", "disable-default-providers", "tags")
    assert check_other_keys(["pulumi:template"]).warnings == [
        "pulumi:template: not a key the Pulumi CLI reads (pulumi:autonaming, "
        "pulumi:disable-default-providers, pulumi:tags); it is ignored"
    ]
