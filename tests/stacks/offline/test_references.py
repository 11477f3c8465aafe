"""A planned stack's exports as another stack's StackReference reads them
(`stacks.offline.references.reference_exports`), from a small program previewed in-process:
what is known passes as it is, what only deployment knows is left out, except a secret,
which reads as a placeholder carrying the identity of what it is built from."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_command as command
import pulumi_random as random

from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret
from stacks.offline.lifecycle.generations import export_identities, generations
from stacks.offline.references import reference_exports
from stacks.offline.snapshot.recorded import snapshot_of

PASSWORD_URN = (
    "urn:pulumi:producer::gpu-ci::random:index/randomPassword:RandomPassword::db-password"
)
PASSWORD_IDENTITY = "a14dc16484a0a399"
"""The password export's identity in this plan: the digest of the generation of the one
resource it is built from, the RandomPassword (`export_identities`)."""


def _producer(length: int = 24, setup: str = "echo setup") -> None:
    # pulumi-random asks the engine to make `result` secret (additional_secret_outputs); the
    # recording mocks leave it plain, so the program says it, as nvkind.py does a kubeconfig.
    result = random.RandomPassword("db-password", length=length, special=False).result
    password: pulumi.Output[str] = pulumi.Output.secret(result)
    # The program uses the password; the step's stdout is unknown until it runs.
    step = command.local.Command("setup", create=setup, environment={"PASSWORD": password})
    pulumi.export("region", "eu-frankfurt-1")  # plain, known
    pulumi.export("api-token", pulumi.Output.secret("offline-token"))  # secret, known
    pulumi.export("login", {"user": "admin", "token": pulumi.Output.secret("t0k")})
    pulumi.export("endpoint", {"host": "10.0.1.2", "port": 6443})  # plain, known, nested
    pulumi.export("setup-output", step.stdout)  # plain, unknown at preview
    pulumi.export("db-password", password)  # secret, unknown at preview


def _planned(**kwargs: Any) -> ProgramRun:
    return run_program(lambda: _producer(**kwargs), project="gpu-ci", stack="producer", config={})


def test_known_exports_pass_as_they_are_and_unknown_plain_ones_are_left_out() -> None:
    exports = reference_exports("producer", _planned())
    assert exports.outputs == {
        "region": "eu-frankfurt-1",
        "api-token": "offline-token",  # opened: secret_names makes it a secret again
        "login": {"user": "admin", "token": "t0k"},
        "endpoint": {"host": "10.0.1.2", "port": 6443},
        "db-password": f"offline-placeholder:producer.db-password:{PASSWORD_IDENTITY}",
    }
    assert "setup-output" not in exports.outputs


def test_secret_names_are_exactly_the_exports_holding_a_secret() -> None:
    """A secret inside a mapping makes the whole export secret; a known or unknown plain
    export is none, whether the reader gets it or not."""
    exports = reference_exports("producer", _planned())
    assert exports.secret_names == frozenset({"api-token", "login", "db-password"})


def test_an_unknown_secret_carries_the_identity_of_what_it_is_built_from() -> None:
    run = _planned()
    snapshot = snapshot_of(run)
    assert run.export_sources["db-password"] == [PASSWORD_URN]
    assert export_identities(snapshot, run.export_sources)["db-password"] == PASSWORD_IDENTITY
    # The identity is that of the password alone, not of the step that uses it.
    assert export_identities(snapshot, {"x": [PASSWORD_URN]})["x"] == PASSWORD_IDENTITY
    assert generations(snapshot)[PASSWORD_URN] == "d9383ee481775861"


def test_the_placeholder_names_the_stack_it_is_read_from() -> None:
    """`plan` passes the referenced stack's name, which the placeholder carries."""
    exports = reference_exports("org/gpu-ci/shared", _planned())
    placeholder = exports.outputs["db-password"]
    assert placeholder == f"offline-placeholder:org/gpu-ci/shared.db-password:{PASSWORD_IDENTITY}"


def test_the_placeholder_changes_exactly_when_the_secret_would_be_made_anew() -> None:
    """A longer password is a new password (every input of random_password forces a new
    one), so its readers see a new value; a changed step that only reads it is not."""
    base = reference_exports("producer", _planned()).outputs["db-password"]
    new_password = reference_exports("producer", _planned(length=32)).outputs["db-password"]
    new_reader = reference_exports("producer", _planned(setup="echo again")).outputs
    assert new_password != base
    assert new_password.startswith("offline-placeholder:producer.db-password:")
    assert new_reader["db-password"] == base


def test_a_stack_reference_reads_them_as_secrets_and_without_the_unknowns() -> None:
    """What the reading stack gets: a secret output for each of `secret_names`, the
    placeholder among them, and nothing for an export the producer's plan cannot know."""
    exports = reference_exports("producer", _planned())

    def consumer() -> None:
        ref = pulumi.StackReference("producer")
        for name in ("region", "api-token", "db-password", "setup-output"):
            pulumi.export(name, ref.get_output(name))

    cloud = FakeCloud({}, stacks={"producer": exports})
    run = run_program(consumer, project="gpu-ci", stack="consumer", config={}, cloud=cloud)
    assert run.exports == {
        "region": "eu-frankfurt-1",
        "api-token": Secret("offline-token"),
        "db-password": Secret(f"offline-placeholder:producer.db-password:{PASSWORD_IDENTITY}"),
        "setup-output": None,
    }
