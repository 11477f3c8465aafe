"""One poll: the watched repositories' open runs, their jobs, and what the metrics say.

Per repository: `GET /repos/{r}/actions/runs?status=queued` and `?status=in_progress`
(paged, conditional), then `GET .../runs/{id}/jobs` for each of those runs, and once more
for each run that was open at the last poll and is no longer (its jobs may have started in
between). After a gap (a restart, a rate limit), runs created since the last poll that
worked are listed too (`created=>=...`), so runs that came and went meanwhile are seen.

Each job is observed once: its id goes into the record (jobs.Seen), which is written to
disk *before* the histogram is updated, so a crash between the two loses an observation
rather than repeating one. With no record (a new pod), jobs that started before the process
did are recorded but not observed: another pod may have observed them.
"""

from __future__ import annotations

import math
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .app_token import TokenError
from .exposition import Labels, Registry
from .github_api import ApiError, Client, RateLimitedError
from .jobs import Job, label_of, load_seen, parse_job
from .settings import REPOSITORY, Settings

WAIT = "gpu_ci_queue_wait_seconds"
QUEUED = "gpu_ci_queue_jobs_queued"
OLDEST = "gpu_ci_queue_oldest_job_age_seconds"
LEFT = "gpu_ci_queue_jobs_left_without_runner_total"
REQUESTS = "gpu_ci_queue_api_requests_total"
REMAINING = "gpu_ci_queue_rate_limit_remaining"
ERRORS = "gpu_ci_queue_errors_total"
SKIPPED = "gpu_ci_queue_skipped_items_total"
LAST_SUCCESS = "gpu_ci_queue_last_success_timestamp_seconds"
DATA_PROBLEMS = {"oversized_response", "bad_json", "foreign_link", "client_error"}
"""ApiError kinds that are GitHub's data, not the poll's health: skipped and counted."""
REPOSITORIES_EVERY_S = 3600.0
PER_PAGE = 100
OPEN = ("queued", "in_progress")


@dataclass
class Pending:
    """What one poll found, published together after the record is saved."""

    waits: list[tuple[str, str, float]] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)
    queued: dict[str, list[float]] = field(default_factory=dict)


class Poller:
    def __init__(
        self,
        settings: Settings,
        client: Client,
        registry: Registry,
        now: Callable[[], float] = time.time,
        log: Callable[[str], None] = print,
        drop_token: Callable[[], None] = lambda: None,
    ) -> None:
        self.s, self.client, self.registry, self.now, self.log = (
            settings,
            client,
            registry,
            now,
            log,
        )
        self.drop_token = drop_token
        self.started = now()
        self.blocked_until = 0.0
        self.repositories = settings.repositories
        self._repos_at = -math.inf  # never listed yet: the first poll lists them
        self._f = registry.family
        self._f(
            WAIT,
            "histogram",
            "Seconds from a job's created_at to its started_at on a runner.",
            settings.buckets,
        )
        for name, kind, text in (
            (QUEUED, "gauge", "Jobs queued now (no runner yet), per runner label."),
            (
                OLDEST,
                "gauge",
                "Seconds the oldest queued job has waited, per runner label (0: none).",
            ),
            (
                LEFT,
                "counter",
                "Jobs that left the queue without a runner (cancelled while queued).",
            ),
            (REQUESTS, "counter", "GitHub API responses by status code (network: none)."),
            (
                REMAINING,
                "gauge",
                "The App installation's primary rate limit left (x-ratelimit-remaining).",
            ),
            (ERRORS, "counter", "Polls that failed, by kind."),
            (SKIPPED, "counter", "Items of GitHub's answers skipped, by reason."),
            (LAST_SUCCESS, "gauge", "When the last complete poll ended (epoch seconds)."),
        ):
            self._f(name, kind, text)
        self.seen, why = load_seen(settings.state_file)
        if why:
            self.log(why)
            self._inc(ERRORS, (("kind", "state"),))
        self.fresh = self.seen.watermark is None

    def _inc(self, name: str, labels: Labels) -> None:
        with self.registry.lock:
            self.registry.families[name].inc(labels)

    def poll(self) -> bool:
        """One poll; whether it completed. Never raises for GitHub's or the disk's faults."""
        now = self.now()
        if now < self.blocked_until:
            return False
        budget = self.client.budget
        low = budget.remaining is not None and budget.remaining < self.s.rate_limit_reserve
        if low and budget.reset is not None and budget.reset > now:
            self.blocked_until = budget.reset  # the rest is left to the scale sets' listeners
            self._inc(ERRORS, (("kind", "reserve"),))
            return False
        found, ok, urls = Pending(), True, set[str]()
        try:
            for repo in self._repos(now):
                ok = self._repo(repo, now, found, urls) and ok
        except RateLimitedError as limit:
            self.blocked_until = limit.until
            self.log(f"GitHub {limit.kind} rate limit: no request until {limit.until:.0f}")
            self._inc(ERRORS, (("kind", f"{limit.kind}_rate_limit"),))
            ok = False
        except (ApiError, TokenError) as err:
            self.log(f"poll failed: {err}")
            self._inc(ERRORS, (("kind", getattr(err, "kind", "token")),))
            ok = False
        self._publish(found, ok, now)
        if ok:
            self.client.forget(urls)
        return ok

    def _repos(self, now: float) -> tuple[str, ...]:
        """The configured repositories, or the installation's (re-listed hourly)."""
        if self.s.repositories or now - self._repos_at < REPOSITORIES_EVERY_S:
            return self.repositories
        names = []
        for item in self._items(
            f"{self.s.api_url}/installation/repositories?per_page={PER_PAGE}", "repositories"
        ):
            name = item.get("full_name") if isinstance(item, dict) else None
            if isinstance(name, str) and REPOSITORY.fullmatch(name):
                names.append(name)
            else:
                self._inc(SKIPPED, (("reason", "bad_repository"),))
        self.repositories, self._repos_at = tuple(sorted(set(names))), now
        return self.repositories

    def _items(self, url: str, key: str, urls: set[str] | None = None) -> Iterator[Any]:
        """Every item under `key` of every page from `url`, at most `max_pages` pages."""
        next_url: str | None = url
        for _ in range(self.s.max_pages):
            if next_url is None:
                return
            if urls is not None:
                urls.add(next_url)
            reply = self.client.get(next_url)
            items = reply.body.get(key) if isinstance(reply.body, dict) else None
            if not isinstance(items, list):
                self._inc(SKIPPED, (("reason", "missing_field"),))
                return
            yield from items
            next_url = reply.next_url
        if next_url is not None:
            self._inc(SKIPPED, (("reason", "too_many_pages"),))

    def _repo(self, repo: str, now: float, found: Pending, urls: set[str]) -> bool:
        base = f"{self.s.api_url}/repos/{repo}/actions/runs"
        try:
            runs: set[int] = set()
            for status in OPEN:
                runs |= self._run_ids(f"{base}?status={status}&per_page={PER_PAGE}", urls)
            look = runs | set(self.seen.open_runs.get(repo, []))
            mark = self.seen.watermark
            if mark is not None and now - mark > 2 * self.s.interval_s:
                since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mark - self.s.interval_s))
                look |= self._run_ids(
                    f"{base}?created={urllib.parse.quote('>=' + since)}&per_page={PER_PAGE}", None
                )
            for run in sorted(look):
                self._jobs(repo, f"{base}/{run}/jobs?per_page={PER_PAGE}", now, found, urls)
        except ApiError as err:
            if err.kind == "unauthorized":
                self.drop_token()
            problem = err.kind in DATA_PROBLEMS
            self._inc(
                SKIPPED if problem else ERRORS, (("reason" if problem else "kind", err.kind),)
            )
            self.log(f"{repo}: {err}")
            return problem
        self.seen.open_runs[repo] = sorted(runs)
        return True

    def _run_ids(self, url: str, urls: set[str] | None) -> set[int]:
        ids = set()
        for item in self._items(url, "workflow_runs", urls):
            run_id = item.get("id") if isinstance(item, dict) else None
            if isinstance(run_id, int) and not isinstance(run_id, bool) and run_id > 0:
                ids.add(run_id)
            else:
                self._inc(SKIPPED, (("reason", "bad_run"),))
        return ids

    def _jobs(self, repo: str, url: str, now: float, found: Pending, urls: set[str]) -> None:
        try:
            items = list(self._items(url, "jobs", urls))
        except ApiError as err:
            if err.kind not in DATA_PROBLEMS:
                raise
            self._inc(SKIPPED, (("reason", err.kind),))  # e.g. a run deleted since (404)
            return
        for item in items:
            job = parse_job(item)
            if isinstance(job, str):
                self._inc(SKIPPED, (("reason", job),))
                continue
            label = label_of(job, self.s.labels)
            if label is not None:
                self._job(repo, label, job, now, found)

    def _job(self, repo: str, label: str, job: Job, now: float, found: Pending) -> None:
        if job.id in self.seen.jobs:
            self.seen.jobs[job.id] = now
            return
        started = job.runner is not None and job.status in ("in_progress", "completed")
        if job.status == "queued":
            found.queued.setdefault(label, []).append(job.created)
            return
        if not started and job.status != "completed":
            return  # waiting for approval or a concurrency group: not for a runner
        self.seen.jobs[job.id] = now
        before = job.started if job.started is not None else job.created
        if self.fresh and before < self.started:
            self._inc(SKIPPED, (("reason", "started_before_first_poll"),))
        elif not started:
            if job.conclusion in ("cancelled", "timed_out"):
                found.left.append((repo, label))
        elif job.started is None or job.started < job.created:
            self._inc(SKIPPED, (("reason", "negative_duration"),))
        else:
            found.waits.append((repo, label, job.started - job.created))

    def _publish(self, found: Pending, ok: bool, now: float) -> None:
        """Save the record, then show what it holds."""
        if ok:
            self.seen.watermark, self.fresh = now, False
        self.seen.forget_old(now)
        try:
            self.seen.dump(self.s.state_file)
        except OSError as err:
            self.log(f"{self.s.state_file}: cannot be written ({err.strerror})")
            self._inc(ERRORS, (("kind", "state"),))
        fams = self.registry.families
        with self.registry.lock:
            for repo, label, wait in found.waits:
                fams[WAIT].observe((("repository", repo), ("runner_label", label)), wait)
            for repo, label in found.left:
                fams[LEFT].inc((("repository", repo), ("runner_label", label)))
            for code, count in self.client.requests.items():
                fams[REQUESTS].set((("code", code),), float(count))
            if self.client.budget.remaining is not None:
                fams[REMAINING].set((), float(self.client.budget.remaining))
            if ok:
                for label in self.s.labels:
                    ages = [max(0.0, now - c) for c in found.queued.get(label, [])]
                    fams[QUEUED].set((("runner_label", label),), float(len(ages)))
                    fams[OLDEST].set((("runner_label", label),), max(ages, default=0.0))
                fams[LAST_SUCCESS].set((), now)
