"""The queue-time exporter against the fake GitHub API: a timeline of jobs, a clock, lives.

`World` is ground truth: each job's creation, start on a runner, completion, as GitHub would
report it at any moment; `sync(t)` makes the fake serve exactly that. A `Life` is one exporter
process (its registry, poller and /metrics server) over a state file that outlives it.
`served` starts the fake with the App's key and a clock, `polls` runs a life through a stretch
of the timeline a minute at a time, and `series` reads one family back from a scrape: the
set-up every queue test shares.

Each run and job the fake serves is GitHub's example checked against its schema
(github_fixtures.py); a job's item at a given stage is made once per process, since the check
is what a timeline's thousands of syncs would otherwise spend their time on.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from components.observability.queue_deploy import QueueExporterArgs, settings
from components.observability.queue_exporter.__main__ import build
from components.observability.queue_exporter.exposition import Registry, serve
from components.observability.queue_exporter.poller import Poller
from components.observability.queue_exporter.settings import Settings, parse
from components.observability.queue_time_config import QueueTimeConfig
from tests.components.observability import github_fixtures as gh
from tests.components.observability.fake_github import FakeGitHub

T0 = 1_796_119_200.0  # 2026-12-01T10:00:00Z
MINUTE, HOUR = 60.0, 3600.0
LABEL = "gpu-a10"


@dataclass
class Clock:
    t: float = T0

    def __call__(self) -> float:
        return self.t


@dataclass(frozen=True)
class Spec:
    job: int
    run: int
    repo: str
    labels: tuple[str, ...]
    created: float
    started: float | None = None
    """When a runner took it; None: never."""
    completed: float | None = None
    conclusion: str = "success"


def app_key(tmp: Path) -> Path:
    """An RSA App key (openssl), its public half, and the Secret's other two files."""
    key, public = tmp / "private_key", tmp / "public.pem"
    private_pem, public_pem = _key_pair()
    key.write_bytes(private_pem)
    public.write_bytes(public_pem)
    (tmp / "app_id").write_text("1234567\n")
    (tmp / "installation_id").write_text("87654321\n")
    return public


@cache
def _key_pair() -> tuple[bytes, bytes]:
    """One 2048-bit key per process (openssl genrsa), its PEM and its public half's."""
    made = subprocess.run(["openssl", "genrsa", "2048"], check=True, capture_output=True).stdout
    public = subprocess.run(
        ["openssl", "rsa", "-pubout"], input=made, check=True, capture_output=True
    ).stdout
    return made, public


@dataclass
class World:
    fake: FakeGitHub
    specs: list[Spec] = field(default_factory=list)

    def sync(self, t: float) -> None:
        runs: dict[str, dict[int, list[str]]] = {}
        jobs: dict[int, list[dict[str, Any]]] = {}
        created: dict[int, float] = {}
        for s in [s for s in self.specs if s.created <= t]:
            done = s.completed is not None and s.completed <= t
            started = s.started is not None and s.started <= t
            item = _job_item(s, started=started, done=done)
            jobs.setdefault(s.run, []).append(item)
            runs.setdefault(s.repo, {}).setdefault(s.run, []).append(item["status"])
            created[s.run] = min(created.get(s.run, s.created), s.created)
        served = {}
        for repo, by_run in runs.items():
            served[repo] = [
                _run_item(repo, run, _run_status(statuses), created[run])
                for run, statuses in by_run.items()
            ]
        with self.fake.lock:
            self.fake.runs, self.fake.jobs = served, jobs


@cache
def _checked_job(s: Spec, *, started: bool, done: bool) -> dict[str, Any]:
    return gh.job(
        s.job,
        s.run,
        list(s.labels),
        s.created,
        started=s.started if started else None,
        completed=s.completed if done else None,
        conclusion=s.conclusion if done else None,
        runner=f"{s.labels[-1]}-runner-{s.job}" if started else None,
    )


def _job_item(s: Spec, *, started: bool, done: bool) -> dict[str, Any]:
    """The job as GitHub reports it at that stage (a copy: the fake may be handed it)."""
    return copy.deepcopy(_checked_job(s, started=started, done=done))


@cache
def _checked_run(repo: str, run: int, status: str, created: float) -> dict[str, Any]:
    return gh.run(repo, run, status, created)


def _run_item(repo: str, run: int, status: str, created: float) -> dict[str, Any]:
    return copy.deepcopy(_checked_run(repo, run, status, created))


def _run_status(statuses: list[str]) -> str:
    if all(s == "queued" for s in statuses):
        return "queued"
    return "completed" if all(s == "completed" for s in statuses) else "in_progress"


def config(fake: FakeGitHub, tmp: Path, repos: list[str], **changes: Any) -> Settings:
    """The settings the program writes for these repositories (queue_deploy.settings), with
    the App's files and the state in `tmp` and the fake as the API."""
    args = QueueExporterArgs(
        namespace="arc-runners",
        secret="gpu-a10-github-app",
        labels=(LABEL,),
        config=QueueTimeConfig(repositories=repos),
        api_url=fake.url,
    )
    raw = {
        **settings(args),
        "stateFile": str(tmp / "seen.json"),
        "appIdFile": str(tmp / "app_id"),
        "installationIdFile": str(tmp / "installation_id"),
        "privateKeyFile": str(tmp / "private_key"),
    }
    return dataclasses.replace(parse(raw, "config.json"), **changes)


@dataclass
class Life:
    """One exporter process: its poller and its /metrics on a loopback port."""

    poller: Poller
    url: str
    server: Any
    messages: list[str]

    @classmethod
    def start(cls, cfg: Settings, clock: Clock) -> Life:
        registry = Registry()
        poller = build(cfg, registry, now=clock)
        messages: list[str] = []
        poller.log = messages.append
        server = serve(registry.render, 0, "127.0.0.1")
        return cls(poller, f"http://127.0.0.1:{server.server_address[1]}/metrics", server, messages)

    def scrape(self) -> str:
        with urllib.request.urlopen(self.url, timeout=10) as reply:
            assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            text: str = reply.read().decode()
            return text

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$")


def samples(text: str) -> dict[tuple[str, str], float]:
    """{(name, '{labels}'): value} of an exposition text's sample lines."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        match = _SAMPLE.match(line)
        assert match, line
        out[(match.group(1), match.group(2) or "")] = float(match.group(3))
    return out


def series(text: str, name: str) -> dict[str, float]:
    """{'{labels}': value} of one series name's samples in an exposition text."""
    return {labels: v for (n, labels), v in samples(text).items() if n == name}


@contextmanager
def served(tmp: Path, max_per_page: int = 100) -> Iterator[FakeGitHub]:
    """The fake GitHub API on loopback, with a new App key in `tmp` and a `Clock` at T0."""
    fake = FakeGitHub(app_key(tmp), Clock(), max_per_page=max_per_page).start()
    try:
        yield fake
    finally:
        fake.stop()


def clock_of(fake: FakeGitHub) -> Clock:
    """The clock `served` gave the fake, which the exporter's lives share."""
    assert isinstance(fake.now, Clock)
    return fake.now


def polls(life: Life, world: World, start: float, end: float, *, scrape: bool = False) -> list[str]:
    """One poll a minute from `start` to `end` (inclusive), each of which must complete,
    with the world synced first; each poll's /metrics text when `scrape`."""
    clock, texts = clock_of(world.fake), []
    clock.t = start
    while clock.t <= end:
        world.sync(clock.t)
        assert life.poller.poll(), life.messages
        if scrape:
            texts.append(life.scrape())
        clock.t += MINUTE
    return texts


def started(fake: FakeGitHub, tmp: Path, repos: list[str], **changes: Any) -> Life:
    """A Life polling `fake` for `repos` on its clock, with `changes` to the settings."""
    return Life.start(config(fake, tmp, repos, **changes), clock_of(fake))
