"""The lock files (read with the standard library: it runs before .venv exists) and the
`lock` task, which regenerates them from the direct pins people edit."""

from __future__ import annotations

import re

from tools.tasks.checkout import BIN, ROOT, run

# Each lock (generated, hashed, every transitive dependency) from the direct pins people edit.
# requirements.txt keeps the name Pulumi's pip toolchain installs (Pulumi.yaml, `virtualenv`);
# the dev lock is constrained to it, so both agree on every runtime version.
LOCKS = {"requirements.txt": "requirements.in", "requirements-dev.txt": "requirements-dev.in"}
RUNTIME_LOCK, DEV_LOCK = LOCKS  # the dev lock holds the runtime lock unchanged
REQUIREMENTS = (*LOCKS.values(), *LOCKS)
# The CI machine's interpreter: the oldest the project supports. `--universal` resolves for
# every platform and Python >= this one, markers kept, so one lock serves CI and newcomers.
LOCK_PYTHON = "3.11"

LOCK_HELP = (
    "python3 tasks.py lock [UV PIP COMPILE ARGS]\n"
    "  `uv pip compile --universal --python-version 3.11 --generate-hashes` of requirements.in\n"
    "  into requirements.txt, then of requirements-dev.in (constrained to it) into\n"
    "  requirements-dev.txt; locked versions stay unless ARGS say --upgrade or\n"
    "  --upgrade-package NAME (needs the network)"
)


def locked_packages(lock_file: str) -> dict[str, bool]:
    """The packages a lock pins, by name, each with whether a marker limits it to some
    platforms or Pythons (read with the standard library: it runs before .venv exists)."""
    packages: dict[str, bool] = {}
    for line in (ROOT / lock_file).read_text().splitlines():
        if line[:1].isalnum():  # an entry; its hashes and `# via` notes are indented
            name = re.split(r"[^A-Za-z0-9._-]", line, maxsplit=1)[0]
            packages[re.sub(r"[-_.]+", "-", name).lower()] = ";" in line
    return packages


def locked_entry(lock_file: str, name: str) -> str:
    """One package's entry in a lock, its `==` pin and every `--hash` line, as pip reads it
    (`name` as the lock spells it); "" if the lock has none."""
    lines = (ROOT / lock_file).read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{name}=="):
            entry = [line]
            while entry[-1].endswith("\\"):
                entry.append(lines[i + len(entry)])
            return "\n".join(entry) + "\n"
    return ""


def lock(extra: list[str]) -> None:
    """Regenerate each lock from its direct pins with the pinned uv (requirements-dev.in).

    An existing lock's versions are kept unless ARGS ask otherwise (`--upgrade`,
    `--upgrade-package NAME`); the runtime lock is written first and constrains the dev one.
    """
    for lock_file, direct in LOCKS.items():
        constraints = [] if lock_file == "requirements.txt" else ["-c", "requirements.txt"]
        run(
            BIN / "uv",
            "pip",
            "compile",
            direct,
            *constraints,
            "--universal",
            "--python-version",
            LOCK_PYTHON,
            "--generate-hashes",
            "--no-config",
            "--quiet",
            "--custom-compile-command",
            "python3 tasks.py lock",
            "--output-file",
            lock_file,
            *extra,
        )
