"""Every component follows one convention (`components/__init__.py`), read from the source.

- args models carry no `depends_on`/`after`/`provider`: those come through `opts`;
- no child sets `provider=`: it inherits the component's (`opts.provider`);
- children are named from the component's name, except those listed in NAMED_APART;
- `register_outputs` is the last statement of every component's `__init__`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "components").rglob("*.py"))
OPTION_FIELDS = {"depends_on", "after", "provider", "providers"}
NAMED_APART = {
    # Registered before the convention; renaming changes their URNs (an alias would keep
    # them, but the names are also what `stacks diff` and the README's graph show).
    ("components/oci/vm_capacity.py", "'network'"),
    ("components/oci/vm_capacity.py", "'placement'"),
    ("components/oci/vm_capacity.py", "f'gpu-vm-{index}'"),
}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _bases(node: ast.ClassDef) -> set[str]:
    return {ast.unparse(b) for b in node.bases}


def _classes(base: str) -> list[tuple[Path, ast.ClassDef]]:
    return [
        (path, node)
        for path in SOURCES
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ClassDef) and base in _bases(node)
    ]


ARGS = _classes("ComponentArgs")
COMPONENTS = _classes("pulumi.ComponentResource")


def test_the_convention_is_read_from_every_component() -> None:
    assert len(COMPONENTS) >= 15 and len(ARGS) >= 15


@pytest.mark.parametrize(("path", "cls"), ARGS, ids=lambda v: getattr(v, "name", ""))
def test_args_carry_no_resource_options(path: Path, cls: ast.ClassDef) -> None:
    fields = {
        s.target.id
        for s in cls.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    }
    assert not fields & OPTION_FIELDS, f"{_rel(path)} {cls.name}: pass these through opts"


def _is_options(call: ast.Call) -> bool:
    return ast.unparse(call.func) in {"child", "pulumi.ResourceOptions"}


def test_no_child_sets_its_provider() -> None:
    found = [
        f"{_rel(path)}:{node.lineno}"
        for path in SOURCES
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Call)
        and _is_options(node)
        and any(k.arg in {"provider", "providers"} for k in node.keywords)
    ]
    assert not found, "children inherit the component's opts.provider"


def _child_opts(call: ast.Call) -> bool:
    values = [*call.args, *(k.value for k in call.keywords if k.arg == "opts")]
    return any(
        isinstance(v, ast.Call)
        and ast.unparse(v.func) == "child"
        and ast.unparse(v.args[0]) == "self"
        for v in values
    )


def _from_name(arg: ast.expr) -> bool:
    if isinstance(arg, ast.Name):
        return arg.id == "name"
    if isinstance(arg, ast.JoinedStr) and arg.values:
        first = arg.values[0]
        return isinstance(first, ast.FormattedValue) and ast.unparse(first.value) == "name"
    return False


def test_children_are_named_from_the_component() -> None:
    found = []
    for path, cls in COMPONENTS:
        for node in ast.walk(cls):
            if not (isinstance(node, ast.Call) and _child_opts(node)):
                continue
            positional = 1 if ast.unparse(node.func) == "pulumi.CustomResource" else 0
            arg = node.args[positional]
            if not _from_name(arg) and (_rel(path), ast.unparse(arg)) not in NAMED_APART:
                found.append(f"{_rel(path)}:{node.lineno} {ast.unparse(arg)}")
    assert not found, f"name these from the component's `name`: {found}"


@pytest.mark.parametrize(("path", "cls"), COMPONENTS, ids=lambda v: getattr(v, "name", ""))
def test_register_outputs_comes_last(path: Path, cls: ast.ClassDef) -> None:
    (init,) = [s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"]
    last = init.body[-1]
    assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call), _rel(path)
    assert ast.unparse(last.value.func) == "self.register_outputs", f"{_rel(path)} {cls.name}"
