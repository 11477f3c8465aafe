"""Which keys the check skips, where an unread namespace's hint points, and which getters a
provider's `ProviderArgs` names (mutation-testing survivors of stacks/config/namespaces.py).

The plan tests of test_other_namespaces.py see these messages from a subprocess, which
mutmut does not trace; these check the same behaviour in-process."""

from __future__ import annotations

from stacks.config.namespaces import _provider_args, check_other_keys, provider_packages

OCI_LABEL = f"pulumi-oci {provider_packages()['oci'].version}"
READERS = "gpu-ci:, pulumi:, command:, kubernetes:, oci:, random:"
REFUSED = (
    "; the oci provider refuses a key it does not define when Pulumi configures it, so "
    "`pulumi up` would fail there"
)


def unread(full_key: str, hint: str = "") -> str:
    namespace = full_key.partition(":")[0]
    return (
        f"{full_key}: no package of this program reads the {namespace}: namespace (it reads "
        f"{READERS}){hint}; it is ignored"
    )


def test_a_namespace_near_one_the_program_reads_points_at_its_key_or_at_it() -> None:
    found = check_other_keys(
        ["ocii:region", "ocii:xyzzy", "gpu-cj:host", "pulumii:tags", "aws:region"]
    )
    assert found.problems == []
    assert found.warnings == [
        unread("aws:region"),
        unread("gpu-cj:host", " (did you mean 'gpu-ci:host'?)"),
        unread("ocii:region", " (did you mean 'oci:region'?)"),
        unread("ocii:xyzzy", " (did you mean the oci: namespace?)"),
        unread("pulumii:tags", " (did you mean 'pulumi:tags'?)"),
    ]


def test_gpu_ci_keys_and_keys_without_a_name_are_left_to_others_and_the_rest_checked() -> None:
    """`gpu-ci:` keys are StackConfig's to check; `oci`, `oci:` and `oci:config:` name no
    key. Each sorts before `oci:regoin`, which is still refused."""
    found = check_other_keys(["gpu-ci:hots", "oci", "oci:", "oci:config:", "oci:regoin"])
    assert found.warnings == []
    assert [(p.key, p.message) for p in found.problems] == [
        (
            "oci:regoin",
            f"not a config key of {OCI_LABEL} (did you mean 'oci:region'?){REFUSED}",
        )
    ]


def test_provider_args_is_found_after_imports_other_classes_and_its_docstring() -> None:
    source = (
        "import pulumi\n"
        "KEY = 'kubeconfig'\n"
        "class Other:\n    @pulumi.getter\n    def other(self): ...\n"
        "class ProviderArgs:\n"
        '    """The arguments of a Provider."""\n'
        "    kind = 'provider'\n"
        "    @property\n    @pulumi.getter\n    def cluster(self): ...\n"
        "class Provider:\n    @pulumi.getter\n    def provider(self): ...\n"
    )
    assert _provider_args(source) == {"cluster"}


def test_a_getter_whose_name_is_not_a_literal_names_no_key() -> None:
    source = (
        "class ProviderArgs:\n"
        "    @property\n    @pulumi.getter(name=KEY)\n    def from_a_constant(self): ...\n"
        "    @property\n    @pulumi.getter()\n    def unnamed_call(self): ...\n"
        "    @property\n    @pulumi.getter(name='context')\n    def context_(self): ...\n"
    )
    assert _provider_args(source) == {"context"}
