"""`python -m queue_exporter CONFIG`: poll every interval, serve /metrics meanwhile.

A config file that is wrong is logged once and the process stays up serving
`gpu_ci_queue_errors_total{kind="config"} 1` on DEFAULT_PORT, so a bad ConfigMap shows as
an error metric (and this message in the log), not as a crash loop.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from .app_token import InstallationToken
from .exposition import Registry, serve
from .github_api import Client
from .poller import ERRORS, Poller
from .settings import Settings, SettingsError, load

DEFAULT_PORT = 9102


def log(message: str) -> None:
    print(f"queue-exporter: {message}", file=sys.stderr, flush=True)


def build(settings: Settings, registry: Registry, now: Callable[[], float] = time.time) -> Poller:
    """The poller for `settings`, its client and token wired together."""
    token = InstallationToken(
        api_url=settings.api_url,
        app_id_file=settings.app_id_file,
        installation_id_file=settings.installation_id_file,
        key_file=settings.private_key_file,
        now=now,
        post=lambda url, bearer: client.post(url, bearer),  # noqa: PLW0108 (client is made below)
    )
    client = Client(settings.api_url, token, now, settings.max_body_bytes)
    return Poller(settings, client, registry, now=now, log=log, drop_token=token.drop)


def run(config: str, sleep: Callable[[float], None] = time.sleep) -> None:
    registry = Registry()
    try:
        settings = load(config)
    except SettingsError as err:
        log(f"config refused, not polling: {err}")
        registry.family(ERRORS, "counter", "Polls that failed, by kind.").inc((("kind", "config"),))
        serve(registry.render, DEFAULT_PORT)
        while True:
            sleep(3600)
    poller = build(settings, registry)
    serve(registry.render, settings.port)
    every = f"every {settings.interval_s:g}s"
    log(f"polling {len(settings.repositories) or 'all the installation'} repositories {every}")
    while True:
        started = time.time()
        poller.poll()
        wake = max(started + settings.interval_s, poller.blocked_until)
        sleep(max(1.0, wake - time.time()))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        log("usage: python -m queue_exporter CONFIG.json")
        sys.exit(2)
    run(sys.argv[1])
