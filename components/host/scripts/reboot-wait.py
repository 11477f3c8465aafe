"""Host step reboot-wait: after the driver step scheduled a reboot, wait until the host
has gone down and its SSH server answers again.

Runs on the machine running `pulumi up` (python3, standard library only), fed on stdin
by a pulumi-command `local.Command`. A remote command cannot do this: it would connect
to the host before the reboot and be cut off by it. Inputs come from the environment:
  GPU_CI_HOST, GPU_CI_PORT          where the host's SSH server listens;
  GPU_CI_DRIVER_RESULT              the driver step's stdout (its last line is JSON);
  GPU_CI_DOWN_TIMEOUT, GPU_CI_UP_TIMEOUT, GPU_CI_POLL_SECONDS   bounds, in seconds.
Every failure exits non-zero with `gpu-ci step reboot-wait: <cause>` on stderr; the last
stdout line is `{"step":"reboot-wait","changed":...}`.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

STEP = "reboot-wait"


def log(message: str) -> None:
    print(f"gpu-ci step {STEP}: {message}", file=sys.stderr, flush=True)


def die(message: str) -> None:
    log(message)
    sys.exit(1)


def ssh_answers(host: str, port: int, timeout: float) -> bool:
    """True when the port accepts a connection and sends an SSH banner."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.settimeout(timeout)
            return conn.recv(4).startswith(b"SSH-")
    except OSError:
        return False


def reboot_scheduled(driver_stdout: str) -> bool:
    lines = [line for line in driver_stdout.splitlines() if line.strip()]
    if not lines:
        die("the nvidia-driver step printed no result line")
    try:
        result = json.loads(lines[-1])
    except json.JSONDecodeError:
        die(f"the nvidia-driver step's last line is not JSON: {lines[-1][:200]!r}")
    return bool(result.get("rebootScheduled"))


def wait_until(answers: bool, host: str, port: int, timeout: float, poll: float) -> float:
    """Poll until `ssh_answers` equals `answers`; the seconds it took, or -1 on timeout."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if ssh_answers(host, port, timeout=min(poll, 5.0) or 1.0) == answers:
            return time.monotonic() - start
        time.sleep(poll)
    return -1.0


def main() -> None:
    env = os.environ
    host, port = env["GPU_CI_HOST"], int(env.get("GPU_CI_PORT", "22"))
    if not reboot_scheduled(env.get("GPU_CI_DRIVER_RESULT", "")):
        log("the driver step scheduled no reboot, nothing to wait for")
        print(json.dumps({"step": STEP, "changed": False}))
        return
    poll = float(env.get("GPU_CI_POLL_SECONDS", "2"))
    down_timeout = float(env.get("GPU_CI_DOWN_TIMEOUT", "300"))
    up_timeout = float(env.get("GPU_CI_UP_TIMEOUT", "900"))
    log(f"waiting up to {down_timeout:g}s for {host}:{port} to go down for the reboot")
    if wait_until(False, host, port, down_timeout, poll) < 0:
        die(f"{host}:{port} never went down within {down_timeout:g}s: the reboot did not happen")
    log(f"{host} is rebooting; waiting up to {up_timeout:g}s for SSH to answer again")
    took = wait_until(True, host, port, up_timeout, poll)
    if took < 0:
        die(f"{host}:{port} did not answer SSH within {up_timeout:g}s after the reboot")
    log(f"{host} answers SSH again after {took:.0f}s")
    print(json.dumps({"step": STEP, "changed": True, "secondsToReturn": round(took)}))


if __name__ == "__main__":
    main()
