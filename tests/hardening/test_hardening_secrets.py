"""No secret in plain text: every example stack, planned and applied under the mocks.

Each `secure:` value of every `Pulumi.*.yaml` (found by glob, so new example stacks are
audited too) is replaced by a fake credential carrying a unique marker (shaped as its field
expects: a PEM key, an OCID, a fingerprint, a region); stacks whose host
takes an SSH key also get one, stored as a secret. The marker must then be absent, as
text and as base64 at any alignment, from everything the engine or a reader would see in
plain text: registered inputs and outputs, options, invoke arguments, stack exports,
rendered step scripts, OCI cloud-init user data, log lines and the plan snapshot. In an
update the nvkind cluster's kubeconfig exists, so its admin token is audited as well.

A positive control keeps the audit honest: each marker must reach the program, inside a
value the engine holds as a secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from stacks.config import load_config, raw_from_flat
from stacks.offline import plan
from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret, mask
from stacks.offline.plan import REPO, local_stack_name, plan_run
from stacks.offline.references import reference_exports
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from stacks.offline.stack_file.read import StackFile, read_stack_file
from stacks.program import main

STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))
PLACEHOLDER = "offline-placeholder:"
KUBECONFIG_TOKEN = (
    "offline-plan-fake-admin-token"  # stacks.offline.engine.fakes.FAKE_KUBECONFIG's user
)
COMMANDS = ("command:remote:Command", "command:local:Command")
SCRIPT_KEYS = ("create", "update", "delete", "stdin", "environment")
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]{24,}$")


def marker(path: str) -> str:
    """A unique token for the secret at config `path` (lowercase letters and digits)."""
    return "gpuciaudit" + hashlib.sha256(path.encode()).hexdigest()[:14]


def fake_secret(path: str) -> tuple[str, str]:
    """(value, token): a fake credential shaped as the field at `path` expects it, and the
    part of it that must never be seen in plain text."""
    token, leaf = marker(path), path.rsplit(".", 1)[-1]
    if leaf == "fingerprint":
        digest = hashlib.sha256(path.encode()).hexdigest()
        value = ":".join(digest[i : i + 2] for i in range(0, 32, 2))
        return value, value
    if leaf == "region":
        return f"zz-{token}-1", token
    if leaf in ("user", "tenancy") or leaf.endswith("Id"):
        return f"ocid1.{leaf.lower()}.oc1..aaaa{token}", token
    pem = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{token}\n-----END OPENSSH PRIVATE KEY-----\n"
    return pem, token


def needles(token: str) -> list[str]:
    """`token`, and the parts of its base64 fixed by the token alone, at each alignment."""
    found = [token]
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + token.encode()).decode()
        found.append(encoded[4 if pad else 0 : -4])
    return found


def with_fake_secrets(stack_file: StackFile) -> tuple[StackFile, list[str]]:
    """The stack with fake credentials in place of its `secure:` placeholders."""
    tokens: list[str] = []

    def fill(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(PLACEHOLDER):
            # `offline-placeholder:PATH:DIGEST` (the digest of the ciphertext), or PATH alone
            path = re.sub(r":[0-9a-f]{12}$", "", value.removeprefix(PLACEHOLDER))
            fake, token = fake_secret(path)
            tokens.append(token)
            return fake
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    config: dict[str, str] = {}
    for key, text in stack_file.config.items():
        parsed: Any = json.loads(text) if text[:1] in ("{", "[") else text
        if key == "gpu-ci:host" and parsed.get("target") in ("oci-vm", "ssh"):
            parsed.setdefault("privateKey", f"{PLACEHOLDER}{key}.privateKey")
        filled = fill(parsed)
        config[key] = filled if isinstance(filled, str) else json.dumps(filled, sort_keys=True)
    secret, leaves = set(stack_file.secret_keys), set(stack_file.secret_leaves)
    if "privateKey" in json.loads(config.get("gpu-ci:host", "{}")):
        secret.add("gpu-ci:host")
        leaves.add("gpu-ci:host.privateKey")  # a secret itself, as `--secret --path` stores it
    faked = replace(stack_file, config=config, secret_keys=frozenset(secret))
    return replace(faked, secret_leaves=frozenset(leaves)), tokens


def preview(stack: str, monkeypatch: pytest.MonkeyPatch) -> tuple[ProgramRun, list[str]]:
    """`plan_run` itself (references planned first), reading stack files with fakes."""
    tokens: list[str] = []

    def read(root: Path, name: str) -> StackFile:
        faked, found = with_fake_secrets(read_stack_file(root, name))
        tokens.extend(found)
        return faked

    monkeypatch.setattr(plan, "read_stack_file", read)
    return plan_run(stack), tokens


def update(stack: str) -> tuple[ProgramRun, list[str]]:
    """The stack as `pulumi up` runs it: computed outputs known, references read."""
    stack_file, tokens = with_fake_secrets(read_stack_file(REPO, stack))
    config = load_config(raw_from_flat(stack_file.config, stack_file.secret_keys), stack)
    references = {}
    for reference in config.referenced_stacks():
        other = local_stack_name(reference, stack_file.project)
        run, found = update(other)
        tokens += found
        references[reference] = reference_exports(other, run)
    run = run_program(
        main,
        project=stack_file.project,
        stack=stack,
        config=stack_file.config,
        secret_keys=set(stack_file.secret_keys),
        preview=False,
        cloud=FakeCloud(stack_file.config, references),
    )
    return run, tokens


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decoded(text: str) -> str:
    """A base64 string's text (cloud-init user data, kubeconfigs), else ''."""
    if not _BASE64.match(text):
        return ""
    try:
        return base64.b64decode("".join(text.split()), validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""


def plain_texts(run: ProgramRun) -> Iterator[tuple[str, str]]:
    """(where, text) for everything that is stored, shown or sent in plain text."""
    for reg in run.registrations:
        where = f"{reg.type} {reg.name}"
        inputs, outputs = mask(reg.inputs), mask(reg.outputs)
        yield f"{where} inputs", json.dumps(inputs)
        yield f"{where} outputs", json.dumps(outputs)
        yield f"{where} options", json.dumps(reg.options)
        for text in (*_strings(inputs), *_strings(outputs)):
            if decoded := _decoded(text):
                yield f"{where} base64 value", decoded
        if reg.type in COMMANDS:
            for key in SCRIPT_KEYS:
                if key in inputs:
                    yield f"{where} script {key}", json.dumps(inputs[key])
        if reg.type == "oci:Core/instance:Instance":
            user_data = inputs.get("metadata", {}).get("user_data")
            assert isinstance(user_data, str), f"{where}: user data should be plain base64"
            yield f"{where} cloud-init", base64.b64decode(user_data).decode()
    for invoke in run.invokes:
        yield f"invoke {invoke.token}", json.dumps(mask(invoke.args))
    yield "exports", json.dumps(mask(run.exports))
    for text in _strings(mask(run.exports)):
        if decoded := _decoded(text):
            yield "exports base64 value", decoded
    for level, message in run.logs:
        yield f"log {level}", message
    yield "snapshot", dumps(snapshot_of(run))


def assert_no_leak(run: ProgramRun, tokens: list[str]) -> None:
    texts = list(plain_texts(run))
    assert any(where.endswith("snapshot") for where, _ in texts)
    for token in tokens:
        for needle in needles(token):
            leaks = [where for where, text in texts if needle in text]
            assert leaks == [], f"{token} in plain text ({needle!r}): {leaks}"


def held_as_secret(run: ProgramRun, token: str) -> bool:
    """Whether `token` reached some registered input, inside a secret."""

    def inside(value: Any, secret: bool) -> bool:
        if isinstance(value, Secret):
            return inside(value.value, True)
        if isinstance(value, dict):
            return any(inside(v, secret) for v in value.values())
        if isinstance(value, list):
            return any(inside(v, secret) for v in value)
        return secret and isinstance(value, str) and token in (value + _decoded(value))

    return any(inside(reg.inputs, False) for reg in run.registrations)


def test_the_audit_sees_every_example_stack() -> None:
    assert {"dev", "gpu-dev", "apps-dev", "workstation"} <= set(STACKS)


def test_the_needles_find_a_base64_encoded_secret() -> None:
    value, token = fake_secret("gpu-ci:runner.githubApp.privateKey")
    for prefix in ("", "a", "ab"):
        encoded = base64.b64encode((prefix + value).encode()).decode()
        assert any(n in encoded for n in needles(token)[1:])


@pytest.mark.parametrize("stack", STACKS)
def test_no_secret_in_plain_text_in_the_plan(stack: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A preview may not see a secret at all (an SSH connection to a VM not yet created is
    # unknown as a whole); the update test below proves every secret reaches the program.
    run, tokens = preview(stack, monkeypatch)  # also the tokens of referenced stacks
    assert_no_leak(run, tokens)


@pytest.mark.parametrize("stack", STACKS)
def test_no_secret_in_plain_text_after_an_update(stack: str) -> None:
    run, tokens = update(stack)
    own = with_fake_secrets(read_stack_file(REPO, stack))[1]
    for token in own:
        assert held_as_secret(run, token), f"{token} never reached the program as a secret"
    if run.by_type("pulumi:providers:kubernetes"):
        assert held_as_secret(run, KUBECONFIG_TOKEN), "the kubeconfig should be a secret"
        tokens.append(KUBECONFIG_TOKEN)
    assert_no_leak(run, tokens)


def test_stacks_with_secrets_are_audited_with_them() -> None:
    """dev carries the GitHub App key; dev and gpu-dev an SSH key for their host steps."""
    tokens = {stack: with_fake_secrets(read_stack_file(REPO, stack))[1] for stack in STACKS}
    assert marker("gpu-ci:runner.githubApp.privateKey") in tokens["dev"]
    assert marker("gpu-ci:host.privateKey") in tokens["gpu-dev"]
