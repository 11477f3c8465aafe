"""The reboot-wait step: the deployer waits for the host to go down and answer SSH again.

The probe runs as a real subprocess against a local TCP server that plays the host's
sshd: it answers with an SSH banner, goes away (the reboot) and comes back.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from components.host.chain import reboot_wait_source

SCHEDULED = '{"step":"nvidia-driver","changed":true,"rebootRequired":true,"rebootScheduled":true}'
LOADED = '{"step":"nvidia-driver","changed":false,"rebootRequired":false}'


class FakeSshd:
    """A banner-sending TCP server on a fixed port that can be stopped and restarted."""

    def __init__(self) -> None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen()
        self._server = server
        self._thread = threading.Thread(target=self._serve, args=(server,), daemon=True)
        self._thread.start()

    def _serve(self, server: socket.socket) -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None


@pytest.fixture
def sshd() -> Iterator[FakeSshd]:
    server = FakeSshd()
    server.start()
    yield server
    server.stop()


def probe(
    port: int, driver_result: str, *, down: float = 5, up: float = 5
) -> subprocess.CompletedProcess[str]:
    env = {
        "GPU_CI_HOST": "127.0.0.1",
        "GPU_CI_PORT": str(port),
        "GPU_CI_DRIVER_RESULT": f"progress\n{driver_result}\n",
        "GPU_CI_DOWN_TIMEOUT": str(down),
        "GPU_CI_UP_TIMEOUT": str(up),
        "GPU_CI_POLL_SECONDS": "0.05",
    }
    return subprocess.run(
        [sys.executable, "-"],
        input=reboot_wait_source(),
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def last_line(stdout: str) -> dict[str, object]:
    result: dict[str, object] = json.loads(stdout.strip().splitlines()[-1])
    return result


def test_no_reboot_scheduled_returns_at_once(sshd: FakeSshd) -> None:
    done = probe(sshd.port, LOADED)
    assert done.returncode == 0, done.stderr
    assert last_line(done.stdout) == {"step": "reboot-wait", "changed": False}


def test_waits_for_the_host_to_go_down_and_come_back(sshd: FakeSshd) -> None:
    def reboot() -> None:
        time.sleep(0.4)
        sshd.stop()
        time.sleep(0.6)
        sshd.start()

    rebooter = threading.Thread(target=reboot)
    rebooter.start()
    done = probe(sshd.port, SCHEDULED)
    rebooter.join()
    assert done.returncode == 0, done.stderr
    result = last_line(done.stdout)
    assert result["step"] == "reboot-wait"
    assert result["changed"] is True
    assert "is rebooting" in done.stderr
    assert "answers SSH again" in done.stderr


def test_a_reboot_that_never_happens_fails_naming_the_step(sshd: FakeSshd) -> None:
    done = probe(sshd.port, SCHEDULED, down=0.5)
    assert done.returncode == 1
    assert "gpu-ci step reboot-wait: 127.0.0.1:" in done.stderr
    assert "never went down within 0.5s: the reboot did not happen" in done.stderr


def test_a_host_that_never_returns_fails_naming_the_step(sshd: FakeSshd) -> None:
    sshd.stop()
    done = probe(sshd.port, SCHEDULED, up=0.5)
    assert done.returncode == 1
    assert "did not answer SSH within 0.5s after the reboot" in done.stderr


def test_a_port_that_answers_without_an_ssh_banner_is_not_up() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]

    def accept_silently() -> None:
        while True:
            try:
                server.accept()[0].close()
            except OSError:
                return

    silent = threading.Thread(target=accept_silently, daemon=True)
    silent.start()
    try:
        done = probe(port, SCHEDULED, up=0.3)
    finally:
        server.close()
    # Connections are accepted but no banner comes: down at once, never "up".
    assert done.returncode == 1
    assert "did not answer SSH" in done.stderr


def test_a_driver_result_that_is_not_json_fails() -> None:
    done = probe(1, "Reading package lists...")
    assert done.returncode == 1
    assert "gpu-ci step reboot-wait: the nvidia-driver step's last line is not JSON" in done.stderr
