"""Step authorized-keys: the configured keys in a block gpu-ci manages, the rest of the
file kept, atomic and idempotent, never a file without a key."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from components.host.params.bootstrap import AuthorizedKeysParams
from components.host.params.by_step import PARAMS_BY_STEP
from components.host.params.ssh_keys import SSH_KEY_TYPES, check_ssh_public_key
from components.host.params.step import Step

from .sandbox import Run, Sandbox

USER = "ubuntu"
HOME = "/home/ubuntu"
BEGIN = "# BEGIN gpu-ci managed keys"
END = "# END gpu-ci managed keys"


def public_key(key_type: str = "ssh-ed25519", seed: int = 0, comment: str = "") -> str:
    """A structurally valid OpenSSH public key line (a blob that names its type)."""
    payload = bytes((seed + i) % 256 for i in range(32))
    blob = len(key_type).to_bytes(4, "big") + key_type.encode() + len(payload).to_bytes(4, "big")
    line = f"{key_type} {base64.b64encode(blob + payload).decode()}"
    return f"{line} {comment}" if comment else line


ALICE = public_key(seed=1, comment="alice@example.org")
BOB = public_key("ecdsa-sha2-nistp256", seed=2, comment="bob")
CAROL = public_key("sk-ssh-ed25519@openssh.com", seed=3)


def add_user(sandbox: Sandbox, home: str = HOME, *, make_home: bool = True) -> None:
    passwd = sandbox.root / "etc/passwd"
    passwd.write_text(
        "root:x:0:0:root:/root:/bin/bash\n"
        f"{USER}:x:{os.getuid()}:{os.getgid()}:Ubuntu:{home}:/bin/bash\n"
    )
    if make_home:
        (sandbox.root / home.lstrip("/")).mkdir(parents=True, exist_ok=True)


def ssh_dir(sandbox: Sandbox) -> Path:
    return sandbox.root / HOME.lstrip("/") / ".ssh"


def keys_file(sandbox: Sandbox) -> Path:
    return ssh_dir(sandbox) / "authorized_keys"


def deliver(sandbox: Sandbox, *keys: str, **values: Any) -> Run:
    step_params = sandbox.params(AuthorizedKeysParams, user=USER, keys=keys, **values)
    return sandbox.run(Step.AUTHORIZED_KEYS, step_params)


def block(*keys: str) -> str:
    return "".join(f"{line}\n" for line in (BEGIN, *keys, END))


def test_first_run_creates_the_directory_the_file_and_the_block(sandbox: Sandbox) -> None:
    add_user(sandbox)
    run = deliver(sandbox, ALICE, BOB)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == block(ALICE, BOB)
    assert ssh_dir(sandbox).stat().st_mode & 0o777 == 0o700
    assert keys_file(sandbox).stat().st_mode & 0o777 == 0o600
    owner = f"{os.getuid()}:{os.getgid()}"
    assert run.commands() == ["chown", "chown"]
    assert run.calls[0] == f"chown {owner} {ssh_dir(sandbox)}"
    assert run.calls[1].startswith(f"chown {owner} {ssh_dir(sandbox)}/.authorized_keys.gpu-ci-")
    assert sorted(p.name for p in ssh_dir(sandbox).iterdir()) == ["authorized_keys"]
    assert run.stdout == '{"step":"authorized-keys","changed":true,"user":"ubuntu","keys":2}\n'
    assert f"wrote 2 managed key(s) to {HOME}/.ssh/authorized_keys" in run.stderr


def test_lines_outside_the_block_survive(sandbox: Sandbox) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    before = f"# my own keys\n{CAROL}\n\n"
    after = "ssh-rsa AAAAB3NzaC1yc2E hand-added\n# trailing comment"  # no final newline
    keys_file(sandbox).write_text(before + block(BOB) + after)
    run = deliver(sandbox, ALICE)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == before + block(ALICE) + after + "\n"
    assert run.result().changed is True
    assert run.calls[0].startswith("chown")  # .ssh existed: only the new file is chowned
    assert len(run.calls) == 1


def test_file_without_a_block_gets_it_appended(sandbox: Sandbox) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    keys_file(sandbox).write_text(f"{CAROL} from-cloud-init\n")
    run = deliver(sandbox, ALICE)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == f"{CAROL} from-cloud-init\n" + block(ALICE)


def test_second_run_changes_nothing(sandbox: Sandbox) -> None:
    add_user(sandbox)
    directory = ssh_dir(sandbox)
    assert deliver(sandbox, ALICE, BOB).returncode == 0
    before = keys_file(sandbox).read_bytes()
    inode = keys_file(sandbox).stat().st_ino
    run = deliver(sandbox, ALICE, BOB)
    assert run.returncode == 0, run.stderr
    assert run.stdout == '{"step":"authorized-keys","changed":false,"user":"ubuntu","keys":2}\n'
    assert run.calls == []
    assert run.stderr == ""
    assert keys_file(sandbox).read_bytes() == before
    assert keys_file(sandbox).stat().st_ino == inode  # not even rewritten
    assert sorted(p.name for p in directory.iterdir()) == ["authorized_keys"]


def test_removed_key_disappears(sandbox: Sandbox) -> None:
    add_user(sandbox)
    assert deliver(sandbox, ALICE, BOB).returncode == 0
    run = deliver(sandbox, BOB)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == block(BOB)
    assert ALICE not in keys_file(sandbox).read_text()
    assert run.result().changed is True
    assert run.result().model_extra == {"user": USER, "keys": 1}


def test_loosened_mode_is_reset(sandbox: Sandbox) -> None:
    add_user(sandbox)
    assert deliver(sandbox, ALICE).returncode == 0
    keys_file(sandbox).chmod(0o644)
    run = deliver(sandbox, ALICE)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).stat().st_mode & 0o777 == 0o600
    assert run.result().changed is True
    assert f"reset mode 0600 and owner {USER}" in run.stderr


def test_duplicate_blocks_are_merged_into_one(sandbox: Sandbox) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    keys_file(sandbox).write_text(block(BOB) + f"{CAROL}\n" + block(BOB))
    run = deliver(sandbox, ALICE)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == block(ALICE) + f"{CAROL}\n"
    assert "had 2 managed blocks; keeping one" in run.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (f"{BEGIN}\n{BOB}\n", f"has '{BEGIN}' without '{END}'"),
        (f"{CAROL}\n{END}\n", f"has '{END}' without '{BEGIN}' before it"),
        (f"{BEGIN}\n{BEGIN}\n{END}\n", f"has '{BEGIN}' twice before '{END}'"),
    ],
    ids=["no-end", "no-begin", "nested"],
)
def test_unbalanced_markers_are_refused_untouched(
    sandbox: Sandbox, content: str, message: str
) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    keys_file(sandbox).write_text(content)
    run = deliver(sandbox, ALICE)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step authorized-keys: {HOME}/.ssh/authorized_keys {message}; fix the file "
        "by hand\n"
    )
    assert keys_file(sandbox).read_text() == content
    assert run.stdout == ""


def test_a_file_without_any_key_is_refused(sandbox: Sandbox) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    keys_file(sandbox).write_text("# nothing here\n\n" + block(ALICE))
    # Only a hand-built model can be empty: validation refuses empty `keys`.
    step_params = AuthorizedKeysParams.model_construct(
        user=USER, keys=(), root=str(sandbox.root), retry_attempts=1, retry_base_seconds=0
    )
    run = sandbox.run(Step.AUTHORIZED_KEYS, step_params)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step authorized-keys: {HOME}/.ssh/authorized_keys would hold no key at all; "
        f"refusing to lock user {USER} out\n"
    )
    assert keys_file(sandbox).read_text() == "# nothing here\n\n" + block(ALICE)


def test_unknown_user_is_named(sandbox: Sandbox) -> None:
    add_user(sandbox)
    step_params = sandbox.params(AuthorizedKeysParams, user="opc", keys=(ALICE,))
    run = sandbox.run(Step.AUTHORIZED_KEYS, step_params)
    assert run.returncode != 0
    assert run.stderr == (
        "gpu-ci step authorized-keys: user opc is not in /etc/passwd (keys are managed for "
        "local users only)\n"
    )


def test_missing_home_is_not_created(sandbox: Sandbox) -> None:
    add_user(sandbox, make_home=False)
    run = deliver(sandbox, ALICE)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step authorized-keys: the home directory {HOME} of user {USER} does not exist\n"
    )
    assert not (sandbox.root / HOME.lstrip("/")).exists()


def test_symlinked_file_is_refused(sandbox: Sandbox) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    target = sandbox.root / "etc/shadow"
    target.write_text("root:*:19000:0:99999:7:::\n")
    keys_file(sandbox).symlink_to(target)
    run = deliver(sandbox, ALICE)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step authorized-keys: {HOME}/.ssh/authorized_keys is a symbolic link; "
        "refusing to write through it\n"
    )
    assert target.read_text() == "root:*:19000:0:99999:7:::\n"


# --- parameters ----------------------------------------------------------------------------


def test_registered() -> None:
    assert PARAMS_BY_STEP[Step.AUTHORIZED_KEYS] is AuthorizedKeysParams
    assert Step("authorized-keys") is Step.AUTHORIZED_KEYS


@pytest.mark.parametrize("key_type", SSH_KEY_TYPES)
def test_every_key_type_is_accepted(key_type: str) -> None:
    key = public_key(key_type, comment="a comment with spaces")
    assert AuthorizedKeysParams(user=USER, keys=(key,)).keys == (key,)
    assert check_ssh_public_key(public_key(key_type)) == public_key(key_type)


def message(keys: tuple[str, ...], user: str = USER) -> str:
    with pytest.raises(ValidationError) as err:
        AuthorizedKeysParams(user=user, keys=keys)
    errors = err.value.errors()
    assert len(errors) == 1
    return str(errors[0]["msg"])


ED25519_BODY = ALICE.split(" ")[1]
TYPES = ", ".join(SSH_KEY_TYPES)


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ((), "Value error, keys is empty: give at least one OpenSSH public key line"),
        (
            (ALICE + "\n",),
            "Value error, keys[0] contains a line break or NUL: give one key line per entry",
        ),
        (
            (ALICE, f"{BOB}\n{CAROL}"),
            "Value error, keys[1] contains a line break or NUL: give one key line per entry",
        ),
        (
            (ALICE + "\x00",),
            "Value error, keys[0] contains a line break or NUL: give one key line per entry",
        ),
        (
            (f"ssh-dss {ED25519_BODY}",),
            f"Value error, keys[0] does not start with an OpenSSH public key type ({TYPES}): "
            "it starts with 'ssh-dss'",
        ),
        (
            (f'command="id" {ALICE}',),
            f"Value error, keys[0] does not start with an OpenSSH public key type ({TYPES}): "
            "it starts with 'command=\"id\"'",
        ),
        (
            ("-----BEGIN OPENSSH PRIVATE KEY-----",),
            f"Value error, keys[0] does not start with an OpenSSH public key type ({TYPES}): "
            "it starts with '-----BEGIN'",
        ),
        (("ssh-ed25519",), "Value error, keys[0]: the ssh-ed25519 key's body is not base64"),
        (
            ("ssh-ed25519 not-base64! x",),
            "Value error, keys[0]: the ssh-ed25519 key's body is not base64",
        ),
        (
            (f"ssh-ed25519 {ED25519_BODY[:15]}",),
            "Value error, keys[0]: the ssh-ed25519 key's body is not base64",
        ),
        (
            (f"ssh-rsa {ED25519_BODY} mislabelled",),
            "Value error, keys[0]: the base64 body is not a ssh-rsa key (truncated, or another "
            "type)",
        ),
        (
            (f"ssh-ed25519 {ED25519_BODY[:8]}",),
            "Value error, keys[0]: the base64 body is not a ssh-ed25519 key (truncated, or "
            "another type)",
        ),
        (
            (ALICE, BOB, f"ssh-ed25519 {ED25519_BODY} alice-again"),
            "Value error, keys[2] is the same key as keys[0]",
        ),
    ],
    ids=[
        "empty",
        "newline",
        "two-keys-in-one",
        "nul",
        "dsa",
        "options-prefix",
        "private-key",
        "no-body",
        "not-base64",
        "bad-padding",
        "type-mismatch",
        "truncated",
        "duplicate",
    ],
)
def test_bad_key_lines_are_refused_with_the_reason(keys: tuple[str, ...], expected: str) -> None:
    assert message(keys) == expected


@pytest.mark.parametrize("user", ["", "Root", "a b", "x" * 33, "$(id)"])
def test_bad_user_is_refused(user: str) -> None:
    with pytest.raises(ValidationError, match="user"):
        AuthorizedKeysParams(user=user, keys=(ALICE,))


# -- revoking: cloud-init's copy of the metadata's keys is gpu-ci's too ------------------
# OCI's cloud-init writes the instance metadata's `ssh_authorized_keys` into the file at
# first boot, as plain lines outside the block. Kept there, a key taken out of
# vm.sshAuthorizedKeys stayed authorized forever (issue 37); the step now drops every plain
# line outside the block whose key it manages (in KEYS, or in the block as it was).


def test_cloud_inits_copy_is_taken_into_the_block_and_revoked_with_it(sandbox: Sandbox) -> None:
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    keys_file(sandbox).write_text(f"{ALICE}\n{BOB}\n")  # as cloud-init leaves it
    first = deliver(sandbox, ALICE, BOB)
    assert first.returncode == 0, first.stderr
    assert keys_file(sandbox).read_text() == block(ALICE, BOB)
    assert (
        f"{HOME}/.ssh/authorized_keys: dropped 2 line(s) outside the block holding a key "
        "gpu-ci manages (cloud-init's copy of the metadata's keys, or a key taken out of "
        "vm.sshAuthorizedKeys)"
    ) in first.stderr
    revoked = deliver(sandbox, BOB)
    assert revoked.returncode == 0, revoked.stderr
    assert keys_file(sandbox).read_text() == block(BOB)
    assert ALICE.split()[1] not in keys_file(sandbox).read_text()
    again = deliver(sandbox, BOB)
    assert (again.returncode, again.calls, again.stderr) == (0, [], "")
    assert again.result().changed is False


def test_a_key_removed_from_a_deployed_vm_is_revoked(sandbox: Sandbox) -> None:
    """A VM set up before this fix: the block and cloud-init's copies above it. Taking BOB
    out of the config revokes it: it was in the block, so its copy outside is gpu-ci's."""
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    keys_file(sandbox).write_text(f"{ALICE}\n{BOB} bob-laptop\n" + block(ALICE, BOB))
    run = deliver(sandbox, ALICE)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == block(ALICE)
    assert run.result().changed is True


def test_keys_gpu_ci_never_managed_and_lines_with_options_stay(sandbox: Sandbox) -> None:
    """A key added by hand (CAROL), and a line with options even for a managed key (a
    restriction someone wrote; cloud-init writes plain lines), are not gpu-ci's."""
    add_user(sandbox)
    ssh_dir(sandbox).mkdir(mode=0o700)
    restricted = f'from="10.0.0.0/8",no-pty {ALICE}'
    outside = f"# admins\n{CAROL}\n{restricted}\n"
    keys_file(sandbox).write_text(outside + block(ALICE))
    run = deliver(sandbox, BOB)
    assert run.returncode == 0, run.stderr
    assert keys_file(sandbox).read_text() == outside + block(BOB)
    assert "dropped" not in run.stderr
