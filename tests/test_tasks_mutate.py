"""`python3 tasks.py mutate`: its module→tests table names real files and every critical
module (issue 16, class 8). The mutation run itself is too slow for `tasks.py test` or CI."""

from __future__ import annotations

from pathlib import Path

import tasks

ROOT = Path(tasks.__file__).resolve().parent
CRITICAL = {
    *(p.relative_to(ROOT).as_posix() for p in (ROOT / "stacks" / "config").glob("*.py")),
    *(
        f"components/host/{name}.py"
        for name in (
            "chain",
            "compat",
            "params",
            "step",
            "bootstrap_params",
            "runner_params",
            "cluster_params",
            "ssh_keys",
        )
    ),
    "recipes/resolver.py",
    "recipes/merge.py",
    *(p.relative_to(ROOT).as_posix() for p in (ROOT / "policy").glob("*.py")),
} - {"stacks/config/__init__.py", "policy/__init__.py", "policy/__main__.py"}


def test_every_critical_module_is_mutated() -> None:
    assert CRITICAL - set(tasks.MUTATION_TESTS) == set()


def test_every_module_and_test_path_exists() -> None:
    for module, tests in tasks.MUTATION_TESTS.items():
        assert (ROOT / module).is_file(), module
        assert tests, module
        for test in tests:
            assert (ROOT / test).exists(), (module, test)
            assert test.startswith("tests/"), (module, test)


def test_mutate_is_not_part_of_test_or_ci() -> None:
    assert "mutate" in tasks.TASK_HELP
    assert "mutate" not in (ROOT / ".ci" / "run").read_text()
    assert "mutmut" not in tasks.TASK_HELP["test"]
