"""The reboot-wait step: the deployer waits for the host to go down and answer SSH again.

The probe runs as a real subprocess against a local TCP server that plays the host's
sshd: it answers with an SSH banner, goes away (the reboot) and comes back. The reboot is
driven by what the probe has seen (its first connection, its "is rebooting" line), never by
wall time: a loaded machine may start the probe's interpreter after any fixed delay.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from components.host.chain import reboot_wait_source

SCHEDULED = '{"step":"nvidia-driver","changed":true,"rebootRequired":true,"rebootScheduled":true}'
LOADED = '{"step":"nvidia-driver","changed":false,"rebootRequired":false}'


class FakeSshd:
    """A banner-sending TCP server on a fixed port that can be stopped and restarted.

    `stop` shuts the listening socket down before closing it: on Linux, `close` alone does
    not wake the thread blocked in `accept`, which keeps the socket listening (the next
    client still gets a banner) and makes a restart fail with EADDRINUSE."""

    def __init__(self) -> None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()

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
            self.connected.set()
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown(socket.SHUT_RDWR)
            self._server.close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            assert not self._thread.is_alive(), "the fake sshd kept accepting after stop"
            self._thread = None


@pytest.fixture
def sshd() -> Iterator[FakeSshd]:
    server = FakeSshd()
    server.start()
    yield server
    server.stop()


def _probe_env(port: int, driver_result: str, down: float, up: float) -> dict[str, str]:
    return {
        "GPU_CI_HOST": "127.0.0.1",
        "GPU_CI_PORT": str(port),
        "GPU_CI_DRIVER_RESULT": f"progress\n{driver_result}\n",
        "GPU_CI_DOWN_TIMEOUT": str(down),
        "GPU_CI_UP_TIMEOUT": str(up),
        "GPU_CI_POLL_SECONDS": "0.05",
    }


def probe(
    port: int, driver_result: str, *, down: float = 5, up: float = 5
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-"],
        input=reboot_wait_source(),
        env=_probe_env(port, driver_result, down, up),
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
    """The host goes down once the probe has seen it up, and returns once the probe says it
    saw the reboot, whenever the probe's interpreter gets to run."""
    child = subprocess.Popen(
        [sys.executable, "-"],
        env=_probe_env(sshd.port, SCHEDULED, down=30, up=30),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stderr is not None and child.stdout is not None
    child.stdin.write(reboot_wait_source())
    child.stdin.close()
    try:
        assert sshd.connected.wait(timeout=30), "the probe never connected"
        sshd.stop()
        stderr = [child.stderr.readline() for _ in range(2)]
        assert "is rebooting" in stderr[-1], stderr
        sshd.start()
        stderr.append(child.stderr.read())
        stdout = child.stdout.read()
        assert child.wait(timeout=30) == 0, stderr
    finally:
        child.kill()
        child.wait()
    result = last_line(stdout)
    assert result["step"] == "reboot-wait"
    assert result["changed"] is True
    assert "answers SSH again" in stderr[-1]


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
