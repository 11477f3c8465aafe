"""The mocks harness records what the engine sees: parents, edges, options, secrets."""

from __future__ import annotations

import pulumi
import pytest

from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret, mask, reveal


class Box(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Box", name, None, opts)
        self.register_outputs({"label": name, "token": pulumi.Output.secret("tok-123")})


def _program() -> None:
    import pulumi_oci as oci

    box = Box("box")
    other = oci.core.Vcn("other", compartment_id="ocid1.compartment.oc1..x")
    vcn = oci.core.Vcn(
        "vcn",
        compartment_id="ocid1.compartment.oc1..x",
        cidr_blocks=["10.0.0.0/16"],
        freeform_tags={"k": pulumi.Output.secret("hidden-value")},
        opts=pulumi.ResourceOptions(parent=box, protect=True, ignore_changes=["displayName"]),
    )
    oci.core.InternetGateway(
        "igw",
        compartment_id="ocid1.compartment.oc1..x",
        vcn_id=vcn.id,
        opts=pulumi.ResourceOptions(
            parent=box,
            depends_on=[other],
            delete_before_replace=True,
            additional_secret_outputs=["displayName"],
            custom_timeouts=pulumi.CustomTimeouts(create="5m"),
        ),
    )
    pulumi.export("plain", "value")
    pulumi.export("hidden", pulumi.Output.secret("s3cret"))


@pytest.fixture(scope="module")
def run() -> ProgramRun:
    return run_program(_program, project="p", stack="s", config={}, preview=False)


def test_parents_and_urns(run: ProgramRun) -> None:
    box, vcn = run.one("test:index:Box", "box"), run.one("oci:Core/vcn:Vcn", "vcn")
    assert vcn.parent == box.urn
    assert vcn.urn == "urn:pulumi:s::p::test:index:Box$oci:Core/vcn:Vcn::vcn"
    assert box.custom is False and vcn.custom is True


def test_dependencies_and_property_dependencies(run: ProgramRun) -> None:
    igw, vcn = (
        run.one("oci:Core/internetGateway:InternetGateway"),
        run.one("oci:Core/vcn:Vcn", "vcn"),
    )
    assert vcn.urn in igw.dependencies
    assert run.one("oci:Core/vcn:Vcn", "other").urn in igw.dependencies  # depends_on
    assert "vcnId" in igw.property_dependencies and "other" not in str(igw.property_dependencies)
    assert igw.property_dependencies["vcnId"] == [vcn.urn]


def test_options(run: ProgramRun) -> None:
    vcn, igw = (
        run.one("oci:Core/vcn:Vcn", "vcn"),
        run.one("oci:Core/internetGateway:InternetGateway"),
    )
    assert vcn.options["protect"] is True
    assert vcn.options["ignoreChanges"] == ["displayName"]
    assert igw.options["deleteBeforeReplace"] is True
    assert igw.options["additionalSecretOutputs"] == ["displayName"]
    assert igw.options["customTimeouts"] == {"create": "5m"}


def test_secrets_keep_their_marker(run: ProgramRun) -> None:
    tags = run.one("oci:Core/vcn:Vcn", "vcn").inputs["freeformTags"]
    assert isinstance(tags, Secret)
    assert reveal(tags) == {"k": "hidden-value"}
    assert mask(tags) == "[secret]"
    assert "hidden-value" not in repr(tags)


def test_component_outputs_and_exports(run: ProgramRun) -> None:
    box = run.one("test:index:Box", "box")
    assert box.outputs["label"] == "box"
    assert isinstance(box.outputs["token"], Secret)
    assert run.exports["plain"] == "value"
    assert isinstance(run.exports["hidden"], Secret)
    assert mask(run.exports) == {"hidden": "[secret]", "plain": "value"}


def test_runs_are_isolated(run: ProgramRun) -> None:
    again = run_program(lambda: None, project="p", stack="s2", config={})
    assert again.registrations == [] and again.exports == {}
    assert len(run.registrations) == 4
