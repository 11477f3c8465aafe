"""Step github-app-key: the App's PEM from stdin to a 0600 file, never echoed."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.host.params.runner import GithubAppKeyParams
from components.host.params.step import Step

from .github import APP_KEY, KEY_BODY, OWNER
from .sandbox import Sandbox

KEY_FILE = "/etc/gpu-ci/github-app/private-key.pem"


def params(sandbox: Sandbox) -> GithubAppKeyParams:
    return sandbox.params(GithubAppKeyParams, key_owner=OWNER)


def key_path(sandbox: Sandbox) -> Path:
    return sandbox.root / KEY_FILE.lstrip("/")


def test_writes_key_0600_in_a_0700_directory(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=APP_KEY)
    assert run.returncode == 0, run.stderr
    path = key_path(sandbox)
    assert path.read_text() == APP_KEY
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert run.calls == [
        f"chown {OWNER}: {path.parent}",
        f"chown {OWNER}: {path}.gpu-ci-new",
    ]
    assert sorted(p.name for p in path.parent.iterdir()) == ["private-key.pem"]
    assert run.result().changed is True
    assert run.stdout.strip() == '{"step":"github-app-key","changed":true}'
    for text in (run.stdout, run.stderr, *run.calls):
        assert KEY_BODY[:20] not in text
    # The key is not in the script: it only ever arrives on stdin.
    assert KEY_BODY[:20] not in (sandbox.base / "github-app-key.sh").read_text()


def test_same_key_again_changes_nothing(sandbox: Sandbox) -> None:
    sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=APP_KEY)
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=APP_KEY)
    assert run.returncode == 0, run.stderr
    assert run.calls == []
    assert run.result().changed is False


def test_new_key_replaces_the_old_one(sandbox: Sandbox) -> None:
    sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=APP_KEY)
    rotated = APP_KEY.replace(KEY_BODY[:8], "ROTATED0", 1)
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=rotated)
    assert run.returncode == 0, run.stderr
    assert key_path(sandbox).read_text() == rotated
    assert key_path(sandbox).stat().st_mode & 0o777 == 0o600
    assert run.result().changed is True


def test_loosened_mode_is_reset(sandbox: Sandbox) -> None:
    sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=APP_KEY)
    key_path(sandbox).chmod(0o644)
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=APP_KEY)
    assert run.returncode == 0, run.stderr
    assert key_path(sandbox).stat().st_mode & 0o777 == 0o600
    assert run.result().changed is True


@pytest.mark.parametrize(
    "pem",
    [
        APP_KEY.replace("RSA PRIVATE KEY", "PRIVATE KEY"),  # PKCS#8
        APP_KEY.replace("\n", "\r\n"),  # saved on Windows
        "\n" + APP_KEY + "\n",
    ],
    ids=["pkcs8", "crlf", "blank-lines"],
)
def test_accepted_pem_forms(sandbox: Sandbox, pem: str) -> None:
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=pem)
    assert run.returncode == 0, run.stderr
    assert key_path(sandbox).read_bytes() == pem.encode()


def test_empty_stdin_is_refused(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin="")
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci step github-app-key: no GitHub App private key on stdin (the input was empty)"
    )
    assert not key_path(sandbox).exists()
    assert run.calls == []


@pytest.mark.parametrize(
    "junk",
    [
        "ghp_ThisIsAPersonalAccessTokenNotAKey0123",
        APP_KEY.replace("RSA PRIVATE KEY", "CERTIFICATE"),
        APP_KEY.replace("-----END RSA PRIVATE KEY-----\n", ""),
        APP_KEY.replace(
            "-----BEGIN RSA PRIVATE KEY-----\n",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n",
        ),
        APP_KEY + APP_KEY,
        "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----\n",
    ],
    ids=["token", "certificate", "truncated", "encrypted", "two-keys", "no-body"],
)
def test_not_a_private_key_is_refused_without_echo(sandbox: Sandbox, junk: str) -> None:
    run = sandbox.run(Step.GITHUB_APP_KEY, params(sandbox), stdin=junk)
    assert run.returncode != 0
    assert run.stderr.startswith("gpu-ci step github-app-key: stdin is not an unencrypted PEM")
    assert "the input is not shown" in run.stderr
    assert len(run.stderr.splitlines()) == 1
    for line in junk.splitlines():
        if not line.startswith("-----"):
            assert line not in run.stderr
            assert line not in run.stdout
    assert not key_path(sandbox).exists()
    assert run.calls == []
    assert not any(sandbox.tmp.iterdir())
