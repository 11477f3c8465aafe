"""The README's first command on a fresh machine: `python3 tasks.py plan`, uv against pip.

Each run copies this checkout's files (tracked and untracked, not ignored: no .venv) into a
new folder and runs `python3 tasks.py plan --quiet` there, with GPU_CI_INSTALLER=uv or pip.
Cold: new, empty pip and uv caches (PIP_CACHE_DIR, UV_CACHE_DIR), so every file comes from
the index; warm: the caches the installer's cold run left. Both install the same lock with
every file hash-checked. Reported per run: the whole command's wall time, the set-up's own
(its last line), the plan after it (the difference), a second plan (`.venv/bin/python -m
stacks plan dev --quiet`, the steady state), .venv's size and the caches'; then, in the last
uv run's .venv, what the dev plan imports against what is installed (modules from
`sys.modules` after `python -m stacks plan dev` in a fresh process).

PYTHONDONTWRITEBYTECODE is left out of the commands' environment, as on most machines
(Python then caches each module's bytecode at its first import); `--no-bytecode` sets it,
which makes the set-up compile everything at install (tools/tasks/venv_setup.py).

Needs the index (the network) and minutes; nothing is timed in CI. Run it with the Python a
newcomer has (not .venv's):

    python3 bench/setup_first_command.py [--runs N] [--installers uv,pip] [--keep DIR]
        [--no-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SET_UP = re.compile(r"tasks\.py: \.venv is set up with \S+ in (\d+) s")
PLANNED = re.compile(r"^\S+/dev: (\d+) resources \(offline plan\)$", re.MULTILINE)

# What a fresh process's dev plan imports, per distribution, against what it installs.
_IMPORTS = """
import contextlib, io, json, sys
from collections import Counter
from importlib import metadata
from stacks.offline.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["plan", "dev", "--quiet"])
owner = {m: ds[0] for m, ds in metadata.packages_distributions().items()}
loaded = Counter(owner[m.split(".")[0]] for m in list(sys.modules) if m.split(".")[0] in owner)
out = {}
for name, count in loaded.items():
    files = metadata.distribution(name).files or []
    modules = sum(1 for f in files if f.suffix == ".py")
    size = sum(f.locate().stat().st_size for f in files if f.locate().is_file())
    out[name] = [count, modules, size]
print(json.dumps(out))
"""


@dataclass
class Run:
    installer: str
    cache: str  # "cold" or "warm"
    wall: float
    set_up: int
    resources: int
    second_plan: float
    venv_mb: float
    cache_mb: float


def checkout_files() -> list[str]:
    """The files a fresh clone of this working tree has (tracked, and new ones not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (REPO / name).is_file()]


def copy_checkout(to: Path) -> None:
    for name in checkout_files():
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, to / name, follow_symlinks=False)


def megabytes(folder: Path) -> float:
    """Bytes on disk under `folder` (a hard-linked file once), in MB."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for path in folder.rglob("*"):
        stat = path.lstat()
        if path.is_file() and not path.is_symlink() and (stat.st_dev, stat.st_ino) not in seen:
            seen.add((stat.st_dev, stat.st_ino))
            total += stat.st_blocks * 512
    return total / 1e6


def first_command(
    checkout: Path, installer: str, caches: Path, python: str, *, no_bytecode: bool = False
) -> Run:
    """`python3 tasks.py plan --quiet` in a fresh copy, then a second plan; their wall
    times and what they left."""
    env = {
        **os.environ,
        "GPU_CI_INSTALLER": installer,
        "PIP_CACHE_DIR": str(caches / "pip"),
        "UV_CACHE_DIR": str(caches / "uv"),
    }
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    cold = not caches.exists()
    caches.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = subprocess.run(
        [python, "tasks.py", "plan", "--quiet"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(
            f"tasks.py plan ({installer}) exited {done.returncode}:\n{done.stdout}{done.stderr}"
        )
    set_up, planned = SET_UP.search(done.stdout), PLANNED.search(done.stdout)
    if not (set_up and planned):
        raise SystemExit(f"unexpected output of tasks.py plan:\n{done.stdout}")
    started = time.monotonic()
    subprocess.run(
        [checkout / ".venv" / "bin" / "python", "-m", "stacks", "plan", "dev", "--quiet"],
        cwd=checkout,
        env=env,
        capture_output=True,
        check=True,
    )
    second = time.monotonic() - started
    return Run(
        installer,
        "cold" if cold else "warm",
        wall,
        int(set_up.group(1)),
        int(planned.group(1)),
        second,
        megabytes(checkout / ".venv"),
        megabytes(caches),
    )


def imports(checkout: Path) -> dict[str, list[int]]:
    done = subprocess.run(
        [str(checkout / ".venv" / "bin" / "python"), "-c", _IMPORTS],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, list[int]] = json.loads(done.stdout.splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="cold + warm pairs per installer")
    parser.add_argument("--installers", default="uv,pip", help="comma-separated: uv, pip")
    parser.add_argument("--python", default=shutil.which("python3") or sys.executable)
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir)")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="run with PYTHONDONTWRITEBYTECODE=1"
    )
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="first-command-"))
    print(f"python: {args.python}; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    runs: list[Run] = []
    last_uv: Path | None = None
    for i in range(args.runs):
        for installer in args.installers.split(","):
            caches = work / f"caches-{installer}-{i}"
            for _ in ("cold", "warm"):
                checkout = work / f"checkout-{installer}-{i}-{len(runs)}"
                checkout.mkdir(parents=True)
                copy_checkout(checkout)
                run = first_command(
                    checkout, installer, caches, args.python, no_bytecode=args.no_bytecode
                )
                runs.append(run)
                print(
                    f"{run.installer} {run.cache}: {run.wall:.1f} s (set-up {run.set_up} s, "
                    f"plan of {run.resources} resources {run.wall - run.set_up:.1f} s; "
                    f"a second plan {run.second_plan:.1f} s); "
                    f".venv {run.venv_mb:.0f} MB, caches {run.cache_mb:.0f} MB",
                    flush=True,
                )
                if installer == "uv":
                    last_uv = checkout
                elif not args.keep:
                    shutil.rmtree(checkout)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for installer in args.installers.split(","):
        for cache in ("cold", "warm"):
            walls = [r.wall for r in runs if (r.installer, r.cache) == (installer, cache)]
            print(f"median {installer} {cache}: {statistics.median(walls):.1f} s of {len(walls)}")
    if last_uv is not None:
        loaded = imports(last_uv)
        print("\nthe dev plan's imports (modules loaded / .py files installed, MB installed):")
        for name, (count, modules, size) in sorted(loaded.items(), key=lambda kv: -kv[1][2])[:8]:
            print(f"  {name}: {count} / {modules} modules, {size / 1e6:.0f} MB")
    if not args.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
