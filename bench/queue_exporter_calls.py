"""How many GitHub API calls the queue-time exporter makes: 20 repositories, 200 GPU jobs a day.

A deterministic simulation (seeded) against the fake GitHub API of the tests (real HTTP on
loopback, ETags, pages, rate-limit headers): each job is its own workflow run, created at a
seeded moment of the day in a seeded repository, queued 1 to 30 minutes, run 20 to 90
minutes. The exporter (the program the ConfigMap ships, unchanged) polls every 60 s on a
simulated clock. Printed: requests in all, 304s (free: GitHub does not count a 304 against
the primary limit), the requests that do count, per hour, against one App installation's
5,000 an hour; and that every job was observed exactly once.

    .venv/bin/python bench/queue_exporter_calls.py [--hours 24] [--repos 20] [--jobs-per-day 200]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from components.observability.metrics import QUEUE_BUCKETS
from components.observability.queue_exporter.__main__ import build
from components.observability.queue_exporter.exposition import Registry
from components.observability.queue_exporter.poller import WAIT
from components.observability.queue_exporter.settings import Settings
from tests.components.observability.fake_github import FakeGitHub

T0 = 1_796_112_000.0  # 2026-12-01T08:00:00Z
LABEL = "oracle-vm-gpu-a10-1"
BUDGET = 5000


@dataclass(frozen=True)
class Job:
    id: int
    repo: str
    created: float
    started: float
    completed: float


def jobs(repos: list[str], per_day: int, hours: float, seed: int) -> list[Job]:
    rng = random.Random(seed)
    count = round(per_day * hours / 24)
    out = []
    for i in range(count):
        created = T0 + rng.uniform(0, hours * 3600)
        started = created + rng.uniform(60, 1800)
        out.append(
            Job(i + 1, rng.choice(repos), created, started, started + rng.uniform(1200, 5400))
        )
    return out


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def sync(fake: FakeGitHub, all_jobs: list[Job], t: float) -> None:
    """What GitHub lists at `t`: the fields the exporter reads."""
    runs: dict[str, list[dict[str, Any]]] = {}
    listed: dict[int, list[dict[str, Any]]] = {}
    for job in (j for j in all_jobs if j.created <= t):
        status = (
            "queued" if t < job.started else "in_progress" if t < job.completed else "completed"
        )
        runs.setdefault(job.repo, []).append(
            {"id": job.id, "status": status, "created_at": _iso(job.created)}
        )
        listed[job.id] = [
            {
                "id": job.id,
                "run_id": job.id,
                "status": status,
                "conclusion": "success" if status == "completed" else None,
                "created_at": _iso(job.created),
                "started_at": _iso(job.started if status != "queued" else job.created),
                "completed_at": _iso(job.completed) if status == "completed" else None,
                "labels": ["self-hosted", LABEL],
                "runner_name": None if status == "queued" else f"runner-{job.id}",
            }
        ]
    with fake.lock:
        fake.runs, fake.jobs = runs, listed


def simulate(repos: int, per_day: int, hours: float, seed: int = 39) -> dict[str, float]:
    names = [f"example-org/repo-{i:02d}" for i in range(repos)]
    all_jobs = jobs(names, per_day, hours, seed)
    clock = [T0]
    with tempfile.TemporaryDirectory() as tmp:
        key, public = Path(tmp) / "key", Path(tmp) / "public.pem"
        subprocess.run(
            ["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True
        )
        subprocess.run(
            ["openssl", "rsa", "-in", str(key), "-pubout", "-out", str(public)],
            check=True,
            capture_output=True,
        )
        (Path(tmp) / "app").write_text("1234567")
        (Path(tmp) / "inst").write_text("87654321")
        fake = FakeGitHub(public, lambda: clock[0]).start()
        cfg = Settings(
            api_url=fake.url,
            repositories=tuple(names),
            labels=(LABEL,),
            interval_s=60.0,
            buckets=QUEUE_BUCKETS,
            rate_limit_reserve=1000,
            port=9102,
            state_file=str(Path(tmp) / "seen.json"),
            app_id_file=str(Path(tmp) / "app"),
            installation_id_file=str(Path(tmp) / "inst"),
            private_key_file=str(key),
        )
        registry = Registry()
        poller = build(cfg, registry, now=lambda: clock[0])
        poller.log = lambda message: None
        polls, window = 0, None
        while clock[0] <= T0 + hours * 3600 + 3 * 3600:  # and until the last jobs started
            if window is None and clock[0] >= T0 + hours * 3600:
                window = list(fake.log)  # the calls of the simulated day itself
            sync(fake, all_jobs, clock[0])
            poller.poll()
            polls += int(window is None)
            clock[0] += cfg.interval_s
        fake.stop()
    observed = sum(counts[-1] for counts in registry.families[WAIT].counts.values())
    started = sum(1 for j in all_jobs if j.started <= clock[0])
    assert window is not None
    total, free = len(window), sum(1 for _, _, s in window if s == 304)
    span_h = polls * cfg.interval_s / 3600
    return {
        "polls": polls,
        "hours": span_h,
        "jobs": len(all_jobs),
        "observed": observed,
        "started": started,
        "requests": total,
        "not_modified": free,
        "counted": total - free,
        "counted_per_hour": (total - free) / span_h,
        "requests_per_hour": total / span_h,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--repos", type=int, default=20)
    parser.add_argument("--jobs-per-day", type=int, default=200)
    args = parser.parse_args(argv)
    r = simulate(args.repos, args.jobs_per_day, args.hours)
    print(
        f"{args.repos} repositories, {args.jobs_per_day} GPU jobs a day, {r['hours']:.1f} h "
        f"simulated ({r['polls']:.0f} polls every 60 s)"
    )
    print(
        f"jobs: {r['jobs']:.0f} created, {r['started']:.0f} started, {r['observed']:.0f} observed"
    )
    print(
        f"requests: {r['requests']:.0f} ({r['requests_per_hour']:.0f}/h), of which 304: "
        f"{r['not_modified']:.0f}; counted against the primary limit: {r['counted']:.0f} "
        f"({r['counted_per_hour']:.0f}/h, "
        f"{100 * r['counted_per_hour'] / BUDGET:.1f}% of {BUDGET}/h)"
    )
    return 0 if r["observed"] == r["started"] else 1


if __name__ == "__main__":
    sys.exit(main())
