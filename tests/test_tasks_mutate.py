"""`python3 tasks.py mutate`: its module→tests table names real files and every critical
module (issue 16, class 8). The mutation run itself is too slow for `tasks.py test` or CI."""

from __future__ import annotations

from pathlib import Path

import pytest

import tasks
from tools.tasks import mutate
from tools.tasks.mutation_tests import MUTATION_TESTS

ROOT = Path(tasks.__file__).resolve().parent
CRITICAL = {
    *(p.relative_to(ROOT).as_posix() for p in (ROOT / "stacks" / "config").glob("*.py")),
    *(
        f"components/host/{name}.py"
        for name in (
            "chain",
            "config/compat",
            "params/by_step",
            "params/step",
            "params/bootstrap",
            "params/runner",
            "params/cluster",
            "params/ssh_keys",
        )
    ),
    "recipes/resolution/resolver.py",
    "recipes/resolution/merge.py",
    *(p.relative_to(ROOT).as_posix() for p in (ROOT / "policy").glob("*.py")),
} - {"stacks/config/__init__.py", "policy/__init__.py", "policy/__main__.py"}


def test_every_critical_module_is_mutated() -> None:
    assert CRITICAL - set(MUTATION_TESTS) == set()


def test_every_module_and_test_path_exists() -> None:
    for module, tests in MUTATION_TESTS.items():
        assert (ROOT / module).is_file(), module
        assert tests, module
        for test in tests:
            assert (ROOT / test).exists(), (module, test)
            assert test.startswith("tests/"), (module, test)


def test_mutate_is_not_part_of_test_or_ci() -> None:
    assert "mutate" in tasks.TASK_HELP
    assert "mutate" not in (ROOT / ".ci" / "run").read_text()
    assert "mutmut" not in tasks.TASK_HELP["test"]


def test_exit_codes_count_as_mutmut_means_them_except_a_failed_run() -> None:
    assert [mutate.verdict(code) for code in (1, 3, 37, 24, -24, 152, 36)] == ["killed"] * 7
    assert [mutate.verdict(code) for code in (0, 5, 33)] == ["survived"] * 3
    # 255: mutmut's runner raised (pytest exit 4: a test id not found), which `mutmut
    # results` shows as "timeout"; None: never run; 2, 34, 35, -9, -11: no verdict either.
    assert [mutate.verdict(c) for c in (255, None, 4, 2, 34, 35, -9, -11)] == ["not run"] * 8


def test_a_module_with_mutants_not_run_has_no_score() -> None:
    codes = {
        "stacks.config.loader.x_a__mutmut_1": 1,
        "stacks.config.loader.x_a__mutmut_2": 0,
        "stacks.config.loader.x_a__mutmut_3": 255,
        "stacks.config.loader.x_a__mutmut_4": 24,
        "stacks.config.loaders.x_b__mutmut_1": 0,  # another module's mutant
    }
    score = mutate.score_of("stacks/config/loader.py", codes)
    assert (score.mutants, score.killed, score.survived, score.not_run) == (4, 2, 1, 1)
    assert score.names("not run") == ["stacks.config.loader.x_a__mutmut_3"]
    assert score.score == "none"
    del codes["stacks.config.loader.x_a__mutmut_3"]
    assert mutate.score_of("stacks/config/loader.py", codes).score == "67%"
    assert mutate.score_of("stacks/config/loader.py", {}).score == "100%"


MOVING = """
import pytest

@pytest.mark.parametrize("v", ["a\\n", "b"], ids=lambda v: v)
def test_callable_ids(v): pass

@pytest.mark.parametrize("v", ["a\\n", "b"], ids=["a\\n", "b"])
def test_listed_ids(v): pass

@pytest.mark.parametrize("v", ["a\\n", "b"])
def test_generated_ids(v): pass
"""


def test_ids_pytest_gives_again_differently_are_found(tmp_path: Path) -> None:
    (tmp_path / "test_moving.py").write_text(MOVING)
    assert mutate.moving_test_ids(["test_moving.py"], cwd=tmp_path) == [
        "test_moving.py::test_callable_ids[a\\n]",
        "test_moving.py::test_listed_ids[a\\n]",
    ]


def test_every_mutation_selection_keeps_its_ids_between_collections() -> None:
    """Else every mutant whose tests include a moving id ends with "not run" (255)."""
    assert mutate.moving_test_ids(mutate.selection_of(list(MUTATION_TESTS))) == []


def test_tests_that_cannot_be_collected_stop_the_task(tmp_path: Path) -> None:
    """Not an empty list of moving ids: a selection of nothing would pass every check."""
    (tmp_path / "test_none.py").write_text("x = 1\n")
    for tests in (["test_missing.py"], ["test_none.py"]):
        with pytest.raises(SystemExit) as stopped:
            mutate.moving_test_ids(tests, cwd=tmp_path)
        assert str(stopped.value).startswith(f"could not collect {tests[0]} (pytest exit ")
