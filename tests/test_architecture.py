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

OFFLINE_ROOMS = (
    "stacks.offline.engine",
    "stacks.offline.snapshot",
    "stacks.offline.lifecycle",
    "stacks.offline.diff",
    "stacks.offline.state",
    "stacks.offline.stack_file",
)
"""The offline engine's rooms (`stacks/offline/*/` but `charts/`): its top modules import them."""
ALLOWED: dict[str, set[str]] = {
    # group: the groups it may import (its own group always)
    "core": set(),
    "recipes.errors": {"core"},
    "recipes.model": {"core"},
    "recipes.catalogs": {"recipes.model", "recipes.errors", "core"},
    "recipes.resolution": {"recipes.catalogs", "recipes.model", "recipes.errors", "core"},
    "recipes": {
        "recipes.resolution",
        "recipes.catalogs",
        "recipes.model",
        "recipes.errors",
        "core",
    },
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
    # the platform (components/platform/), its packages lowest first
    "components.platform.chainsaw": {"core"},
    "components.platform.releases": {"recipes", "core"},
    "components.platform.chart_values": {"components.platform.releases", "recipes", "core"},
    "components.platform.checks": {
        "components.platform.chainsaw",
        "components.platform.releases",
        "components",
        "recipes",
        "core",
    },
    "components.platform": {
        "components.platform.checks",
        "components.platform.chart_values",
        "components.platform.releases",
        "components",
        "recipes",
        "core",
    },
    "stacks": set(),
    "stacks.config": {"components", "recipes", "policy", "core"},
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
        "components",
        "recipes",
        "policy",
        "core",
    },
    "stacks.compose": {
        "stacks.layers",
        "stacks.context",
        "stacks.config",
        "components",
        "core",
    },
    "stacks.program": {"stacks.compose", "stacks.context", "stacks.config", "core"},
    # the offline engine's rooms, lowest first; each imports only rooms before it
    "stacks.offline.engine": {"core"},
    "stacks.offline.snapshot": {"stacks.offline.engine", "core"},
    "stacks.offline.lifecycle": {"stacks.offline.snapshot", "core"},
    "stacks.offline.diff": {
        "stacks.offline.lifecycle",
        "stacks.offline.snapshot",
        "stacks.offline.engine",
        "core",
    },
    "stacks.offline.state": {
        "stacks.offline.diff",
        "stacks.offline.lifecycle",
        "stacks.offline.snapshot",
        "stacks.offline.engine",
        "core",
    },
    "stacks.offline.stack_file": {"core"},
    # `stacks/offline/` itself (its `__init__` and `references`): the rooms above, no program
    "stacks.offline": {
        *OFFLINE_ROOMS,
        "stacks.config",
        "components",
        "recipes",
        "policy",
        "core",
    },
    "stacks.offline.charts": {
        "stacks.offline.stack_file",
        "stacks.offline.engine",
        "stacks.config",
        "components",
        "recipes",
        "core",
    },
    "stacks.offline.plan": {
        "stacks.offline",
        *OFFLINE_ROOMS,
        "stacks.offline.charts",
        "stacks.program",
        "stacks.config",
        "components",
        "core",
    },
    "stacks.offline.plan_all": {
        "stacks.offline",
        *OFFLINE_ROOMS,
        "stacks.offline.charts",
        "stacks.offline.plan",
        "core",
    },
    "stacks.offline.cli": {
        "stacks.offline",
        *OFFLINE_ROOMS,
        "stacks.offline.charts",
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


def may_import(me: str, other: str) -> bool:
    """Whether group `me` may import group `other`. From outside a group its sub-groups are
    part of it (`stacks.layers` may import `components.platform.checks`); inside it, each
    sub-group's own entry says which of its siblings it may import."""
    return other == me or any(
        other == name or (other.startswith(name + ".") and not me.startswith(name + "."))
        for name in ALLOWED[me]
    )


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
        if not may_import(me, group(name))
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
    assert may_import(me, group("recipes.resolution.merge"))
    assert not may_import(group("recipes.model.overlays"), group("recipes.catalogs.catalog"))


def test_the_platform_packages_layer_one_way() -> None:
    """Inside the platform a package imports only those below it; outside, it is one group."""
    chainsaw, checks = (
        group("components.platform.chainsaw.reads"),
        group("components.platform.checks.model"),
    )
    assert may_import(checks, chainsaw) and not may_import(chainsaw, checks)
    assert not may_import(checks, group("components.platform.release_plan"))
    assert may_import(group("stacks.layers.platform"), checks)


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


MAX_FOLDER_MODULES = 15
"""A folder with more modules than this (its `__init__.py` not counted) holds more than one
concept a newcomer can see at a glance: give each concept its own package (issue #43)."""


def test_no_production_folder_holds_more_modules_than_the_limit() -> None:
    folders: dict[str, int] = {}
    for path in production_modules():
        if path.name != "__init__.py":
            folder = str(path.parent.relative_to(REPO))
            folders[folder] = folders.get(folder, 0) + 1
    assert len(folders) > 20  # the walk found the program's folders
    crowded = {folder: n for folder, n in folders.items() if n > MAX_FOLDER_MODULES}
    assert crowded == {}, f"split these by concept: {crowded}"


def import_graph() -> dict[str, set[str]]:
    """Each production module and the production modules it imports, every import counted
    (under `if TYPE_CHECKING:` and inside functions too)."""
    graph: dict[str, set[str]] = {module_name(p): set() for p in sources()}
    for path in sources():
        graph[module_name(path)] |= {name for _, name, _ in imports(path) if name in graph}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph`: its strongly connected parts of two or more modules,
    and modules that import themselves (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            part: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == module:
                    break
            if len(part) > 1 or module in graph[module]:
                found.append(sorted(part))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_production_modules_import_each_other_in_a_circle() -> None:
    graph = import_graph()
    assert len(graph) > 100 and sum(map(len, graph.values())) > 100
    assert circles(graph) == []


def test_a_circle_is_found_however_long_and_a_line_is_not() -> None:
    """The check itself, on small graphs: a three-module circle, a module importing
    itself, and a chain with a shared lower module (no circle)."""
    three = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(three) == [["a", "b", "c"]]
    assert circles({"a": {"a"}, "b": set()}) == [["a"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
