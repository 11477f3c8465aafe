"""`bench/setup_first_command.py` runs the first command as a newcomer does, against a
stand-in tasks.py that records what it was given (the installer, the caches) and answers
as the real one does; no time is asserted and nothing is downloaded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.setup_first_command import REPO, checkout_files, first_command

STAND_IN = """
import json, os, pathlib, sys
seen = {k: os.environ.get(k) for k in ("GPU_CI_INSTALLER", "PIP_CACHE_DIR", "UV_CACHE_DIR")}
name = "UV_CACHE_DIR" if seen["GPU_CI_INSTALLER"] == "uv" else "PIP_CACHE_DIR"
cache = pathlib.Path(os.environ[name])
seen["cache was empty"] = not cache.exists() or not any(cache.iterdir())
cache.mkdir(parents=True, exist_ok=True)
(cache / "wheel").write_bytes(b"w" * 3_000_000)
seen["no bytecode"] = os.environ.get("PYTHONDONTWRITEBYTECODE")
venv = pathlib.Path(".venv")
(venv / "bin").mkdir(parents=True, exist_ok=True)
(venv / "site").write_bytes(b"s" * 2_000_000)
python = venv / "bin" / "python"  # the second plan's: records its argv and environment
python.write_text(
    "#!/bin/sh\\necho \\"$* ${PYTHONDONTWRITEBYTECODE:-unset}\\" >> ../second.txt\\n"
)
python.chmod(0o755)
with open("../seen.jsonl", "a") as log:
    log.write(json.dumps({**seen, "argv": sys.argv[1:]}) + "\\n")
print("tasks.py: .venv is set up with requirements.txt in 7 s; `python3 tasks.py test` adds x")
print("gpu-ci/dev: 70 resources (offline plan)")
"""


@pytest.mark.parametrize(("installer", "no_bytecode"), [("uv", False), ("pip", True)])
def test_a_cold_run_gets_empty_caches_and_a_warm_one_what_it_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installer: str, no_bytecode: bool
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # this machine's, not a newcomer's
    caches = tmp_path / "caches"
    runs = []
    for i in range(2):
        checkout = tmp_path / f"checkout-{i}"
        checkout.mkdir()
        (checkout / "tasks.py").write_text(STAND_IN)
        runs.append(
            first_command(checkout, installer, caches, sys.executable, no_bytecode=no_bytecode)
        )
    seen = [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]
    assert [s["cache was empty"] for s in seen] == [True, False]
    second = (tmp_path / "second.txt").read_text().splitlines()
    assert second == [f"-m stacks plan dev --quiet {'1' if no_bytecode else 'unset'}"] * 2
    for s in seen:
        assert s["no bytecode"] == ("1" if no_bytecode else None)
        assert s["GPU_CI_INSTALLER"] == installer
        assert (s["PIP_CACHE_DIR"], s["UV_CACHE_DIR"]) == (str(caches / "pip"), str(caches / "uv"))
        assert s["argv"] == ["plan", "--quiet"]
    assert [r.cache for r in runs] == ["cold", "warm"]
    for run in runs:
        assert (run.installer, run.set_up, run.resources) == (installer, 7, 70)
        assert round(run.venv_mb) == 2 and round(run.cache_mb) == 3


def test_a_failed_first_command_stops_with_its_output(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text("print('tasks.py: creating'); raise SystemExit(3)")
    with pytest.raises(SystemExit) as stopped:
        first_command(tmp_path, "uv", tmp_path / "caches", sys.executable)
    assert str(stopped.value.code).startswith("tasks.py plan (uv) exited 3:\ntasks.py: creating")


def test_the_copy_is_a_fresh_clones_files() -> None:
    files = checkout_files()
    assert {"tasks.py", "requirements.txt", "requirements-dev.txt", "Pulumi.dev.yaml"} <= set(files)
    assert not [f for f in files if f.startswith((".venv/", ".git/"))]
    assert all((REPO / f).is_file() for f in files)
