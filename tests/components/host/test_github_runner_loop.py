"""github-runner-loop.sh, run as the unit runs it: tokens minted on the host, never shown."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from components.pins import PINS

from .github import (
    API,
    APP_ID,
    APP_KEY,
    INSTALLATION_ID,
    INSTALLATION_TOKEN,
    JIT_CONFIG,
    REGISTRATION_TOKEN,
    RUNNER_ID,
    assert_no_secret,
    decode_jwt_part,
    install,
    needs_jq,
    run_loop,
    serve_github,
    sha256_line,
)
from .sandbox import Sandbox

pytestmark = needs_jq

ORG = "orgs/acme"
TOKENS = f"{API}/app/installations/{INSTALLATION_ID}/access_tokens"
KEY = "etc/gpu-ci/github-app/private-key.pem"


def jit_url(scope: str = ORG) -> str:
    return f"{API}/{scope}/actions/runners/generate-jitconfig"


def groups_url(scope: str = ORG) -> str:
    return f"{API}/{scope}/actions/runner-groups?per_page=100"


def handoff(sandbox: Sandbox, name: str = "jitconfig") -> Path:
    return sandbox.root / "run/gpu-ci-runner" / name


def id_file(sandbox: Sandbox) -> Path:
    return sandbox.root / "var/lib/gpu-ci/runner/current-runner-id"


def runner_dir(sandbox: Sandbox) -> Path:
    return sandbox.root / "opt/gpu-ci-runner/2.337.0"


def key_path(sandbox: Sandbox) -> Path:
    return sandbox.root / KEY


def test_prepare_mints_a_jit_config_for_one_job(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    before = int(time.time())
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""

    requests = sandbox.api_requests()
    assert [(m, u) for m, u, _ in requests] == [
        ("POST", TOKENS),
        ("GET", groups_url()),
        ("POST", jit_url()),
    ]
    # The App JWT: RS256, issued by the app, backdated 60 s, valid 10 minutes at most.
    jwt = requests[0][2]
    header, payload, signature = jwt.split(".")
    assert decode_jwt_part(header) == {"alg": "RS256", "typ": "JWT"}
    claims = decode_jwt_part(payload)
    assert claims["iss"] == str(APP_ID)
    assert before - 61 <= claims["iat"] <= int(time.time()) - 59
    assert claims["exp"] - claims["iat"] == 600
    signed = hashlib.sha256(f"{header}.{payload}".encode()).hexdigest()
    keysum = hashlib.sha256(APP_KEY.encode()).hexdigest()
    assert unb64url(signature).decode() == f"signed:{signed}:with:{keysum}"
    # Everything after the exchange uses the installation token, not the JWT.
    assert [token for _, _, token in requests[1:]] == [INSTALLATION_TOKEN] * 2

    body = sandbox.api_request_body("POST", jit_url())
    assert re.fullmatch(r"gpu-ci-dev-gpu-0-[0-9a-f]{8}", body.pop("name"))
    assert body == {
        "runner_group_id": 7,
        "labels": ["oracle-vm-gpu-a10-1", "gpu"],
        "work_folder": "_work",
    }
    assert id_file(sandbox).read_text() == f"{RUNNER_ID}\n"
    assert handoff(sandbox).read_text() == JIT_CONFIG
    assert handoff(sandbox).stat().st_mode & 0o777 == 0o600
    assert run.calls[-1] == f"chown gpu-ci-runner {handoff(sandbox)}"
    assert "registered ephemeral runner gpu-ci-dev-gpu-0-" in run.stderr
    # The JWT and tokens went to curl in a header file, never on its command line.
    assert not any(jwt in call for call in run.calls)
    assert all("-H @" in call for call in run.calls if call.startswith("curl"))
    assert_no_secret(sandbox, run, allowed=(key_path(sandbox), handoff(sandbox)))


def unb64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def test_run_hands_the_jit_config_to_run_sh_in_the_environment(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    assert run_loop(sandbox, "prepare").returncode == 0
    run = run_loop(sandbox, "run")
    assert run.returncode == 0, run.stderr
    assert run.calls == ["run.sh"]  # no argument: not on any command line
    assert sandbox.read("run.sh-jitconfig") == sha256_line(JIT_CONFIG)
    assert not handoff(sandbox).exists()  # taken, then deleted before run.sh started
    assert_no_secret(sandbox, run, allowed=(key_path(sandbox),))


def test_run_without_prepare_fails(sandbox: Sandbox) -> None:
    install(sandbox)
    run = run_loop(sandbox, "run")
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci github-runner-loop run: no just-in-time config in "
        f"{handoff(sandbox)} (prepare did not run)"
    )
    assert run.calls == []


def test_repository_runners_use_the_default_group_without_asking(sandbox: Sandbox) -> None:
    install(sandbox, github_url="https://github.com/acme/trainer", runner_group="Default")
    serve_github(sandbox, scope="repos/acme/trainer")
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert [(m, u) for m, u, _ in sandbox.api_requests()] == [
        ("POST", TOKENS),
        ("POST", jit_url("repos/acme/trainer")),
    ]
    assert sandbox.api_request_body("POST", jit_url("repos/acme/trainer"))["runner_group_id"] == 1


def test_enterprise_runner_group(sandbox: Sandbox) -> None:
    install(sandbox, github_url="https://github.com/enterprises/cncf")
    serve_github(sandbox, scope="enterprises/cncf", groups=((3, "Other"), (9, "GPUs")))
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert ("GET", groups_url("enterprises/cncf")) in [(m, u) for m, u, _ in sandbox.api_requests()]
    body = sandbox.api_request_body("POST", jit_url("enterprises/cncf"))
    assert body["runner_group_id"] == 9


def test_unknown_runner_group_fails_naming_it(sandbox: Sandbox) -> None:
    install(sandbox, runner_group="Nope")
    serve_github(sandbox, groups=((7, "GPUs"),))
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci github-runner-loop prepare: runner group Nope does not exist in orgs/acme"
    )
    assert not handoff(sandbox).exists()


def test_rejected_jwt_401_names_the_app(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox)
    sandbox.api("POST", TOKENS, 401, {"message": "A JSON web token could not be decoded"})
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci github-runner-loop prepare: installation token: 401 Unauthorized: the JWT of "
        f"GitHub App {APP_ID} was rejected (check app id {APP_ID}, the key in "
        "/etc/gpu-ci/github-app/private-key.pem and the host clock)"
    )
    assert len(sandbox.api_requests()) == 1  # 401 is not retried
    assert not handoff(sandbox).exists()
    assert_no_secret(sandbox, run, allowed=(key_path(sandbox),))


def test_unknown_installation_404(sandbox: Sandbox) -> None:
    install(sandbox)
    run = run_loop(sandbox, "prepare")  # nothing served: every call is 404
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci github-runner-loop prepare: installation token: 404 Not Found: GitHub App "
        f"{APP_ID} has no installation {INSTALLATION_ID}"
    )


def test_forbidden_scope_403_names_installation_and_scope(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    sandbox.api("POST", jit_url(), 403, {"message": "Resource not accessible by integration"})
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert re.fullmatch(
        r"gpu-ci github-runner-loop prepare: generate-jitconfig for gpu-ci-dev-gpu-0-[0-9a-f]{8}: "
        rf"403 Forbidden: installation {INSTALLATION_ID} of GitHub App {APP_ID} on orgs/acme "
        r"lacks permission \(Resource not accessible by integration\)",
        run.stderr.strip(),
    )
    assert not id_file(sandbox).exists()
    assert_no_secret(sandbox, run, allowed=(key_path(sandbox),))


def test_server_errors_are_retried_with_backoff(sandbox: Sandbox) -> None:
    install(sandbox, retry_base_seconds=1)
    serve_github(sandbox, groups=((7, "GPUs"),))
    sandbox.api("POST", TOKENS, 201, {"token": INSTALLATION_TOKEN}, transient=2)
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert [u for _, u, _ in sandbox.api_requests()].count(TOKENS) == 3
    assert [c for c in run.calls if c.startswith("sleep")] == ["sleep 1", "sleep 2"]
    assert f"POST {TOKENS}: HTTP 503, retry 1/6" in run.stderr


def test_network_error_is_retried_then_succeeds(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    sandbox.put("curl-network", "2")
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert run.commands().count("curl") == 5  # 2 failures, then 3 calls
    assert f"POST {TOKENS}: network error (curl exit 6), retry 2/6" in run.stderr
    assert handoff(sandbox).read_text() == JIT_CONFIG


def test_network_error_exhausts_attempts(sandbox: Sandbox) -> None:
    install(sandbox, retry_attempts=3)
    sandbox.put("curl-network", "99")
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert run.commands().count("curl") == 3
    assert run.stderr.splitlines()[-1] == (
        f"gpu-ci github-runner-loop prepare: POST {TOKENS} failed after 3 attempts "
        "(network error (curl exit 6))"
    )
    assert not any(sandbox.tmp.iterdir())  # the header file with the JWT is gone


def test_unsignable_key_fails_naming_app_and_key(sandbox: Sandbox) -> None:
    install(sandbox)
    sandbox.put("openssl-fail")
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert (
        f"gpu-ci github-runner-loop prepare: could not sign a JWT for GitHub App {APP_ID} "
        "with /etc/gpu-ci/github-app/private-key.pem (openssl failed)" in run.stderr
    )
    assert "curl" not in run.commands()


def test_missing_key_fails(sandbox: Sandbox) -> None:
    install(sandbox)
    key_path(sandbox).unlink()
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert run.stderr.strip() == (
        "gpu-ci github-runner-loop prepare: cannot read the GitHub App private key "
        "/etc/gpu-ci/github-app/private-key.pem (the github-app-key step writes it)"
    )


def test_prepare_deletes_a_runner_left_behind(sandbox: Sandbox) -> None:
    """After a crash or reboot the last JIT runner may still be registered."""
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    id_file(sandbox).write_text("1111\n")
    sandbox.api("DELETE", f"{API}/{ORG}/actions/runners/1111", 204, "")
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert [(m, u) for m, u, _ in sandbox.api_requests()][:2] == [
        ("POST", TOKENS),
        ("DELETE", f"{API}/{ORG}/actions/runners/1111"),
    ]
    assert id_file(sandbox).read_text() == f"{RUNNER_ID}\n"
    assert [u for _, u, _ in sandbox.api_requests()].count(TOKENS) == 1  # one token minted


def test_cleanup_deletes_the_recorded_runner(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    run_loop(sandbox, "prepare")
    sandbox.api("DELETE", f"{API}/{ORG}/actions/runners/{RUNNER_ID}", 204, "")
    (sandbox.state / "api-requests.log").unlink()
    run = run_loop(sandbox, "cleanup")
    assert run.returncode == 0, run.stderr
    assert [(m, u) for m, u, _ in sandbox.api_requests()] == [
        ("POST", TOKENS),
        ("DELETE", f"{API}/{ORG}/actions/runners/{RUNNER_ID}"),
    ]
    assert f"deregistered runner {RUNNER_ID} from orgs/acme" in run.stderr
    assert not id_file(sandbox).exists()
    assert not handoff(sandbox).exists()


def test_cleanup_after_a_finished_job_tolerates_404(sandbox: Sandbox) -> None:
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    run_loop(sandbox, "prepare")
    run = run_loop(sandbox, "cleanup")  # GitHub removed the ephemeral runner itself
    assert run.returncode == 0, run.stderr
    assert f"runner {RUNNER_ID} is already gone from orgs/acme" in run.stderr
    assert not id_file(sandbox).exists()


def test_cleanup_with_nothing_recorded_calls_nothing(sandbox: Sandbox) -> None:
    install(sandbox)
    run = run_loop(sandbox, "cleanup")
    assert run.returncode == 0, run.stderr
    assert run.calls == []


def test_persistent_runner_registers_once(sandbox: Sandbox) -> None:
    install(sandbox, ephemeral=False)
    serve_github(sandbox, groups=((7, "GPUs"),))
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert [(m, u) for m, u, _ in sandbox.api_requests()] == [
        ("POST", TOKENS),
        ("POST", f"{API}/{ORG}/actions/runners/registration-token"),
    ]
    token_file = handoff(sandbox, "registration-token")
    assert token_file.read_text() == REGISTRATION_TOKEN
    assert token_file.stat().st_mode & 0o777 == 0o600

    run = run_loop(sandbox, "run")
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "config.sh --unattended --replace --url https://github.com/acme --name gpu-ci-dev-gpu-0 "
        "--labels oracle-vm-gpu-a10-1,gpu --runnergroup GPUs --work _work",
        "run.sh",
    ]
    assert sandbox.read("config.sh-token") == sha256_line(REGISTRATION_TOKEN)
    assert sandbox.read("run.sh-jitconfig") == sha256_line("unset")
    assert not token_file.exists()
    assert_no_secret(sandbox, run, allowed=(key_path(sandbox),))

    # Configured: later starts mint nothing and go straight to run.sh.
    (sandbox.state / "api-requests.log").unlink()
    assert run_loop(sandbox, "prepare").returncode == 0
    assert sandbox.api_requests() == []
    assert run_loop(sandbox, "run").calls == ["run.sh"]


def test_persistent_runner_not_configured_and_no_token_fails(sandbox: Sandbox) -> None:
    install(sandbox, ephemeral=False)
    run = run_loop(sandbox, "run")
    assert run.returncode != 0
    assert "runner gpu-ci-dev-gpu-0 is not configured and no registration token" in run.stderr


def test_deregister_removes_a_persistent_runner(sandbox: Sandbox) -> None:
    install(sandbox, ephemeral=False)
    serve_github(sandbox)
    (runner_dir(sandbox) / ".runner").write_bytes(b'\xef\xbb\xbf{\n  "agentId": 77\n}')
    (runner_dir(sandbox) / ".credentials").write_text("{}")
    sandbox.api("DELETE", f"{API}/{ORG}/actions/runners/77", 204, "")
    run = run_loop(sandbox, "deregister")
    assert run.returncode == 0, run.stderr
    assert [(m, u) for m, u, _ in sandbox.api_requests()] == [
        ("POST", TOKENS),
        ("DELETE", f"{API}/{ORG}/actions/runners/77"),
    ]
    assert not (runner_dir(sandbox) / ".runner").exists()
    assert not (runner_dir(sandbox) / ".credentials").exists()


def test_bad_mode_and_missing_env_file(sandbox: Sandbox) -> None:
    run = run_loop(sandbox, "bogus")
    assert run.returncode != 0
    assert "usage: github-runner-loop.sh prepare|run|cleanup|deregister ENV_FILE" in run.stderr
    run = run_loop(sandbox, "prepare")
    assert run.returncode != 0
    assert run.stderr.strip() == (
        f"gpu-ci github-runner-loop prepare: cannot read {sandbox.root}/etc/gpu-ci/"
        "github-runner.env (written by the github-runner step)"
    )


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_jwt_signature_verifies_with_real_openssl(sandbox: Sandbox, tmp_path: Path) -> None:
    """With the real openssl, the JWT is a valid RS256 signature by the App's key."""
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    openssl = shutil.which("openssl")
    assert openssl is not None
    (sandbox.bin / "openssl").unlink()
    (sandbox.bin / "openssl").symlink_to(openssl)
    key = key_path(sandbox)
    subprocess.run(
        [openssl, "genrsa", "-traditional", "-out", str(key), "2048"],
        check=True,
        capture_output=True,
    )
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    jwt = sandbox.api_requests()[0][2]
    header, payload, signature = jwt.split(".")
    (tmp_path / "signed").write_text(f"{header}.{payload}")
    (tmp_path / "sig").write_bytes(unb64url(signature))
    subprocess.run(
        [openssl, "rsa", "-in", str(key), "-pubout", "-out", str(tmp_path / "pub")],
        check=True,
        capture_output=True,
    )
    verify = subprocess.run(
        [
            openssl,
            "dgst",
            "-sha256",
            "-verify",
            str(tmp_path / "pub"),
            "-signature",
            str(tmp_path / "sig"),
            str(tmp_path / "signed"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "Verified OK" in verify.stdout


def test_prepare_deletes_what_the_last_job_left_in_work(sandbox: Sandbox) -> None:
    """An ephemeral runner's next job gets no tool cache, cached action or checkout of the
    last one: a job cannot plant code that the next job (and its secrets) would run."""
    install(sandbox)
    serve_github(sandbox, groups=((7, "GPUs"),))
    work = sandbox.root / "opt/gpu-ci-runner" / PINS.runner.version / "_work"
    planted = work / "_actions/actions/checkout/v4"
    planted.mkdir(parents=True)
    (planted / ".completed").write_text("")
    (work / "_tool").mkdir()
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert not work.exists()
    assert (work.parent / "run.sh").is_file()  # the runner itself stays


def test_persistent_runner_keeps_its_work_folder(sandbox: Sandbox) -> None:
    install(sandbox, ephemeral=False)
    serve_github(sandbox, groups=((7, "GPUs"),))
    work = sandbox.root / "opt/gpu-ci-runner" / PINS.runner.version / "_work"
    work.mkdir()
    run = run_loop(sandbox, "prepare")
    assert run.returncode == 0, run.stderr
    assert work.is_dir()
