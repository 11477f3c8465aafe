"""Dependencies go one way: stacks → components → recipes, policy → core.

Read from the source (every `import`, including those under `if TYPE_CHECKING:` and inside
functions), so a cycle cannot hide behind a function-local import. Inside `stacks/`, the
program composes layers, layers use config and contracts, and the offline engine runs the
program without the program knowing it exists.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "recipes", "policy", "components", "stacks", "gpu_ci_package")

ALLOWED: dict[str, set[str]] = {
    # group: the groups it may import (its own group always)
    "core": set(),
    "recipes": {"core"},
    "policy": {"core"},
    "components": {
        "components.host",
        "components.host.config",
        "components.host.params",
        "recipes",
        "policy",
        "core",
    },
    # components/host on three floors: step parameters, then the stack's host config, then
    # the steps' rendering, chaining and resources
    "components.host.params": {"components", "core"},
    "components.host.config": {"components.host.params", "components", "core"},
    "components.host": {
        "components.host.config",
        "components.host.params",
        "components",
        "recipes",
        "policy",
        "core",
    },
    "stacks": set(),
    "stacks.config": {
        "components.host.config",
        "components",
        "recipes",
        "policy",
        "core",
    },
    "stacks.outputs": {"stacks.config", "components", "core"},
    "stacks.contracts": {"stacks.outputs", "stacks.config", "components", "core"},
    "stacks.context": {"stacks.outputs", "stacks.config", "components", "core"},
    "stacks.facts": {"stacks.config", "components", "core"},
    "stacks.layers": {
        "stacks.context",
        "stacks.contracts",
        "stacks.outputs",
        "stacks.facts",
        "stacks.config",
        "components.host",
        "components.host.config",
        "components.host.params",
        "components",
        "recipes",
        "policy",
        "core",
    },
    "stacks.compose": {
        "stacks.layers",
        "stacks.context",
        "stacks.config",
        "components.host.config",
        "components",
        "core",
    },
    "stacks.program": {"stacks.compose", "stacks.context", "stacks.config", "core"},
    "stacks.offline": {"stacks.config", "components", "recipes", "policy", "core"},
    "stacks.offline.plan": {
        "stacks.offline",
        "stacks.program",
        "stacks.config",
        "components",
        "core",
    },
    "stacks.offline.plan_all": {"stacks.offline", "stacks.offline.plan", "core"},
    "stacks.offline.cli": {
        "stacks.offline",
        "stacks.offline.plan",
        "stacks.offline.plan_all",
        "core",
    },
    "stacks.__main__": {"stacks.offline.cli"},
    # the multi-language package: above the program, whose config and layers it runs
    "gpu_ci_package": {
        "stacks.compose",
        "stacks.context",
        "stacks.config",
        "stacks.layers",
        "components",
        "core",
    },
}
LAZY_IMPORTS_ALLOWED = {"stacks.compose"}
"""The one composing module: each layer (and its provider SDK) loads only when needed."""


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def group(module: str) -> str:
    best = ""
    for name in ALLOWED:
        if (module == name or module.startswith(name + ".")) and len(name) > len(best):
            best = name
    assert best, f"{module}: not in any architecture group (add it to ALLOWED)"
    return best


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO / package).rglob("*.py"))


def imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, module imported, whether the import is inside a function) for our modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    local: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            local |= {id(n) for n in ast.walk(node) if n is not node}
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            names += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.split(".")[0] in PACKAGES and _is_module(name):
                found.append((getattr(node, "lineno", 0), name, id(node) in local))
    return found


def _is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_every_module_belongs_to_a_group() -> None:
    for path in sources():
        group(module_name(path))


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_imports_go_one_way(path: Path) -> None:
    me = group(module_name(path))
    wrong = [
        f"{path.relative_to(REPO)}:{line}: {me} imports {name} ({group(name)})"
        for line, name, _ in imports(path)
        if group(name) != me and group(name) not in ALLOWED[me]
    ]
    assert wrong == []


def test_only_the_composing_module_imports_inside_functions() -> None:
    local = [
        f"{path.relative_to(REPO)}:{line}: {name}"
        for path in sources()
        if module_name(path) not in LAZY_IMPORTS_ALLOWED
        for line, name, inside in imports(path)
        if inside
    ]
    assert local == []


def test_a_group_with_an_upward_import_is_caught(tmp_path: Path) -> None:
    """The check itself: a components module importing stacks is refused."""
    me = group("components.host.chain")
    assert group("stacks.config.stack") not in ALLOWED[me]
    assert group("recipes.merge") in ALLOWED[me]


def _layout_section() -> str:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    return page.split("\n## How it is built\n", 1)[1].split("\n## ", 1)[0]


def _layout_table() -> str:
    return "\n".join(line for line in _layout_section().splitlines() if line.startswith("| `"))


def test_the_layout_table_names_only_paths_that_exist() -> None:
    roots = (*PACKAGES, "tests", "bench", ".github", "examples")
    paths = [
        p
        for p in re.findall(r"`([\w.*<>/-]+/[\w.*<>/-]*)`", _layout_table())
        if p.split("/")[0] in roots
    ]
    missing = [
        p for p in paths if "<" not in p and "*" not in p and not (REPO / p.rstrip("/")).exists()
    ]
    assert paths and missing == []


def test_the_layout_table_names_every_package() -> None:
    table = _layout_section()
    packages = sorted(
        str(init.parent.relative_to(REPO)) + "/"
        for package in PACKAGES
        for init in (REPO / package).rglob("__init__.py")
    )
    assert [p for p in packages if f"`{p}`" not in table] == []


MAX_MODULE_LINES = 350
"""A production module longer than this holds more than one concept: split it (issue #30)."""
PRODUCTION = (
    *("core", "recipes", "components", "stacks", "policy", "bench", "tools"),
    "gpu_ci_package",
)


def production_modules() -> list[Path]:
    found = [REPO / "tasks.py", REPO / "__main__.py"]
    for top in PRODUCTION:
        found += sorted((REPO / top).rglob("*.py"))
    found += sorted((REPO / ".github" / "actions").rglob("*.py"))
    return [p for p in found if "node_modules" not in p.parts]


def test_no_production_module_is_longer_than_the_limit() -> None:
    modules = production_modules()
    assert len(modules) > 100  # the walk found the program, not an empty folder
    long = {
        str(p.relative_to(REPO)): n
        for p in modules
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"split these by concept: {long}"
