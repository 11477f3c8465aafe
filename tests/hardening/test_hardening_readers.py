"""Every YAML and JSON the program reads is read by the one careful reader (issue #29, item 2).

Alias bombs, deep nesting, values that contain themselves, numbers Python cannot read and
import chains thousands long, in each kind of file: catalogs (overlay overrides layered
under a stack, values, manifests), ESC definitions, the action's inputs and stack-config,
`stacks diff` snapshots and the config values Pulumi passes. Each ends in one message
naming the file (or key or input) and the fix, quickly: never a hang, a `MemoryError`, a
`RecursionError` or a traceback. Before the reader, the bombs hung or filled memory and the
deep documents ended in `RecursionError` (or, past ~50,000 levels, a crash in libyaml).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from core import read_json, read_yaml
from core.errors import GpuCiError
from core.read_limits import ACTION_INPUT, CATALOG_FILE, STACK_FILE
from recipes import RecipeError, load_catalog
from recipes.catalogs.yamlfiles import load_text
from recipes.cli import main as recipes_main
from stacks.offline.cli import main as stacks_main
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO
from stacks.offline.stack_file.esc_definitions import MAX_IMPORT_DEPTH
from stacks.offline.stack_file.yaml_document import read_document
from stacks.program import main as program
from tests.deadlines import deadline
from tests.stacks.stack_helpers import flat

CURRENT = "aicr.run/v1alpha2"


def bomb_lines(indent: str, levels: int = 9) -> list[str]:
    """An alias bomb: 9**levels values once expanded (10**8.6 for 9), in `levels` lines."""
    lines = [f"{indent}a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)
    ]
    return lines


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def catalog(root: Path, overrides: str = "", **files: str) -> Path:
    """A catalog for a stack's `gpu-ci:platform.catalogs`: component `leaky` in an overlay
    every kind query matches, with `overrides` (YAML lines) and `files` (rel: text)."""
    registry = (
        f"apiVersion: {CURRENT}\nkind: ComponentRegistry\ncomponents:\n"
        "  - name: leaky\n"
        "    helm: {defaultRepository: 'https://charts.example/leaky', "
        "defaultChart: example/leaky, defaultVersion: 1.0.0, defaultNamespace: leaky}\n"
    )
    overlay = (
        f"kind: RecipeMetadata\napiVersion: {CURRENT}\nmetadata: {{name: leaky}}\nspec:\n"
        "  criteria: {service: kind}\n  componentRefs:\n    - name: leaky\n"
        "      valuesFile: components/leaky/values.yaml\n"
    )
    if overrides:
        overlay += "      overrides:\n" + overrides
    texts = {
        "registry.yaml": registry,
        "overlays/leaky.yaml": overlay,
        "components/leaky/values.yaml": "replicas: 1\n",
        **files,
    }
    for rel, text in texts.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def plan_with(cat: Path) -> tuple[str, list[Registration]]:
    """The program's one message for a stack that layers `cat` under the project's catalog."""
    values = {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "local"},
        "gpu-ci:cluster": {"name": "gpu-ci"},
        "gpu-ci:platform": {
            "accelerator": "a10",
            "intent": "training",
            "platform": "kubeflow",
            "catalogs": [str(cat)],
        },
    }
    registered: list[Registration] = []
    with deadline(30), pytest.raises((GpuCiError, pulumi.RunError)) as failure:
        run_program(
            program, project="gpu-ci", stack="x", config=flat(values), registrations=registered
        )
    return str(failure.value), registered


def one_line(message: str, *fragments: str) -> None:
    assert "Traceback" not in message and "RecursionError" not in message, message
    for fragment in fragments:
        assert message.count(fragment) == 1, message


# -- catalogs ---------------------------------------------------------------------------------


def test_an_alias_bomb_in_overrides_layered_under_a_stack_is_refused(tmp_path: Path) -> None:
    cat = catalog(tmp_path / "cat", "\n".join(bomb_lines(" " * 8)) + "\n")
    start = time.perf_counter()
    message, registered = plan_with(cat)
    assert time.perf_counter() - start < 10
    one_line(
        message,
        "gpu-ci:platform.catalogs: overlays/leaky.yaml: aliases expand the value at line 15 "
        f"past {CATALOG_FILE.max_values} values; write the values out instead of nesting aliases",
    )
    assert registered == []


def test_deep_overrides_layered_under_a_stack_are_refused(tmp_path: Path) -> None:
    cat = catalog(tmp_path / "cat", f"        deep: {nested(5000)}\n")
    message, registered = plan_with(cat)
    one_line(
        message,
        "overlays/leaky.yaml: values nest more than 100 levels deep (line 10); flatten them: "
        "no recipe catalog file nests that deep",
    )
    assert registered == []


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("\n".join(bomb_lines("")) + "\n", "aliases expand the value at line 6 past 500000"),
        (f"deep: {nested(5000)}\n", "values nest more than 100 levels deep (line 1)"),
        ("a: &a\n  b: *a\n", "an alias refers to a mapping or list it is inside (line 1)"),
        ("n: " + "7" * 5000 + "\n", "a value looks like a number or a date but cannot be read"),
        ("released: 2026-13-45\n", "a value looks like a number or a date but cannot be read"),
    ],
    ids=["alias-bomb", "deep", "contains-itself", "long-integer", "impossible-date"],
)
def test_a_hostile_values_file_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, fragment: str
) -> None:
    cat = catalog(tmp_path / "cat", **{"components/leaky/values.yaml": text})
    with deadline(20):
        code = recipes_main(
            ["query", "--data", str(cat), "--service", "kind", "--selector", "components.leaky"]
        )
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("error: components/leaky/values.yaml: ") and err.count("\n") == 1, err
    one_line(err, fragment)


def test_an_alias_bomb_in_a_manifest_is_refused(tmp_path: Path) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n"
    manifest += "\n".join(bomb_lines("  ")) + "\n"
    cat = catalog(tmp_path / "cat", **{"components/leaky/m.yaml": manifest})
    overlay = cat / "overlays/leaky.yaml"
    overlay.write_text(overlay.read_text() + "      manifestFiles: [components/leaky/m.yaml]\n")
    message, registered = plan_with(cat)
    one_line(message, "components/leaky/m.yaml: aliases expand the value at line 10 past 500000")
    # Manifests are parsed when the platform is planned (components/platform), after the
    # host's resources: a malformed manifest stops there too. No release nor object is.
    assert not [r.urn for r in registered if "RecipeReleases$" in r.urn]


def test_catalog_reading_keeps_yaml_semantics_and_sharing() -> None:
    """Aliases within the bounds still load, shared as PyYAML shares them."""
    data = load_text("a: &x {b: [1, 2]}\nc: *x\nd: {<<: *x, e: yes}\n")
    assert data == {"a": {"b": [1, 2]}, "c": {"b": [1, 2]}, "d": {"b": [1, 2], "e": True}}
    assert data["a"] is data["c"]


def test_a_bomb_of_a_billion_values_is_refused_as_fast_as_a_small_one() -> None:
    text = "\n".join(bomb_lines("", levels=10)) + "\n"  # 9**10: 3.5 billion values
    start = time.perf_counter()
    with pytest.raises(RecipeError, match=r"^bomb\.yaml: aliases expand the value at line 6"):
        load_text(text, "bomb.yaml")
    assert time.perf_counter() - start < 1


def test_nesting_a_million_deep_is_refused_before_libyaml_composes_it() -> None:
    """libyaml's composer recurses in C: about 50,000 levels crash the interpreter."""
    with pytest.raises(RecipeError, match=r"^v\.yaml: values nest more than 100 levels"):
        load_text(nested(1_000_000), "v.yaml")


def test_the_bounds_leave_every_shared_catalog_file_readable(upstream: Path) -> None:
    """The largest real files (AICR's Gateway API CRDs, 585 KiB) stay far within them."""
    for data in (upstream / "aicr-main-2026-07-09/recipes", upstream / "aicr-v0.11.1/recipes"):
        load_catalog([data])
    crds = (
        "aicr-main-2026-07-09/recipes/components/agentgateway-crds/manifests/gateway-api-crds.yaml"
    )
    text = (upstream / crds).read_text()
    documents = read_yaml.parse_all(text, name="crds", limits=CATALOG_FILE, schema=read_yaml.SAFE)
    assert len(documents) == 5
    values = sum(read_yaml.bound(n, "crds", CATALOG_FILE) for n in _nodes(text))
    assert values == 9_120  # as `CATALOG_FILE.reason` says, far under its bound
    assert values < CATALOG_FILE.max_values / 50


def _nodes(text: str) -> list[yaml.Node]:
    return list(yaml.compose_all(text, Loader=yaml.CSafeLoader))


# -- ESC definitions -------------------------------------------------------------------------


def project(tmp_path: Path, stack: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    (root / "Pulumi.x.yaml").write_text(stack)
    return root


def test_a_chain_of_1500_esc_imports_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "environment: [gpu-ci/e0]\nconfig:\n  gpu-ci:capacity: none\n")
    (root / "esc/gpu-ci").mkdir(parents=True)
    for i in range(1500):
        imports = f"imports: [gpu-ci/e{i + 1}]\n" if i < 1499 else ""
        (root / f"esc/gpu-ci/e{i}.yaml").write_text(f"{imports}values: {{pulumiConfig: {{}}}}\n")
    with deadline(30):
        code = stacks_main(["plan", "x", "--project-dir", str(root)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        f"error: esc/gpu-ci/e{MAX_IMPORT_DEPTH - 1}.yaml: ESC environments import one another "
        f"more than {MAX_IMPORT_DEPTH} deep (gpu-ci/e0 -> ... -> gpu-ci/e{MAX_IMPORT_DEPTH}); "
        "import the environments a stack needs from fewer levels\n"
    )


def test_an_alias_bomb_in_an_esc_definition_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "environment: [gpu-ci/bomb]\nconfig:\n  gpu-ci:capacity: none\n")
    (root / "esc/gpu-ci").mkdir(parents=True)
    text = "values:\n  pulumiConfig:\n" + "\n".join(bomb_lines("    ")) + "\n"
    (root / "esc/gpu-ci/bomb.yaml").write_text(text)
    with deadline(30):
        assert stacks_main(["plan", "x", "--project-dir", str(root)]) == 2
    err = capsys.readouterr().err
    one_line(err, "esc/gpu-ci/bomb.yaml: aliases expand", "past 100000 values")


# -- the action's inputs and stack-config (the functions its scripts call) -------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (nested(1000), "values nest more than 8 levels deep (line 1); flatten them"),
        ("\n".join(bomb_lines("")), "aliases expand the value at line 5 past 10000 values"),
        ("[" * 70_000, "70000 characters, more than the 65536 a gpu-cluster action input"),
        ("[[0], [1]", "not valid YAML: while parsing a flow sequence"),
    ],
    ids=["deep", "alias-bomb", "huge", "malformed"],
)
def test_an_action_input_is_read_carefully(text: str, fragment: str) -> None:
    with deadline(10), pytest.raises(GpuCiError) as err:
        read_yaml.load(text, name="input gpus", limits=ACTION_INPUT, schema=read_yaml.CORE)
    assert str(err.value).startswith("input gpus: ")
    one_line(str(err.value), fragment)


def test_an_action_input_reads_as_yaml_1_2() -> None:
    parsed = read_yaml.load(
        "[[0], [1, on]]", name="input gpus", limits=ACTION_INPUT, schema=read_yaml.CORE
    )
    assert parsed.data == [[0], [1, "on"]]


def test_the_actions_stack_config_is_read_inside_the_workspace_only(tmp_path: Path) -> None:
    workspace, elsewhere = tmp_path / "workspace", tmp_path / "home"
    workspace.mkdir()
    elsewhere.mkdir()
    (elsewhere / "secrets.yaml").write_text("config:\n  gpu-ci:token: SECRET-OF-THE-RUNNER\n")
    (workspace / "ci").mkdir()
    (workspace / "ci/stack.yaml").symlink_to(elsewhere / "secrets.yaml")
    with pytest.raises(GpuCiError) as err:
        read_document(workspace / "ci/stack.yaml", workspace, "GITHUB_WORKSPACE")
    assert str(err.value) == (
        "stack.yaml: a symlink that leads outside GITHUB_WORKSPACE; put the file itself in "
        "GITHUB_WORKSPACE instead of a link to a file elsewhere"
    )
    (workspace / "ci/bomb.yaml").write_text("config:\n" + "\n".join(bomb_lines("  ")) + "\n")
    refused = r"^bomb\.yaml: aliases expand config key a5 past 100000 values"
    with deadline(10), pytest.raises(GpuCiError, match=refused):
        read_document(workspace / "ci/bomb.yaml", workspace, "GITHUB_WORKSPACE")


# -- JSON: `stacks diff` snapshots and the config values Pulumi passes ------------------------


def snapshot(inputs: Any) -> str:
    resource = {"urn": "urn:x", "type": "t", "name": "n", "parent": "", "dependencies": []}
    return json.dumps(
        {
            "project": "gpu-ci",
            "stack": "dev",
            "outputs": {},
            "resources": [{**resource, "inputs": inputs}],
        }
    )


def test_stacks_diff_of_a_deeply_nested_snapshot_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    base.write_text(snapshot({}))
    head.write_text(snapshot({"values": None}).replace("null", nested(100_000)))
    assert stacks_main(["diff", str(base), str(head)]) == 2
    err = capsys.readouterr().err
    one_line(err, f"{head}: values nest more than 200 levels deep (line 1)")


def test_stacks_diff_reads_a_snapshot_nested_to_its_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bound leaves the diff, which recurses too, well inside Python's stack."""
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    base.write_text(snapshot({"v": 1}))
    head.write_text(snapshot({"v": json.loads(nested(196))}))  # 200 with the snapshot's own
    assert read_json.depth_problem(head.read_text(), 200) is None
    assert read_json.depth_problem(head.read_text(), 199) == 1
    assert stacks_main(["diff", str(base), str(head)]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    # the change is found; type `t` has no replacement rules, so it may be replaced
    assert "0 to update, 0 to replace, 1 may be replaced (1 cannot be predicted)" in out


def test_a_deeply_nested_config_value_is_one_message_naming_the_key() -> None:
    """Pulumi passes objects as JSON text: a hand-written stack file under `pulumi up`."""
    config = {"gpu-ci:capacity": "none", "gpu-ci:host": nested(5000)}
    with pytest.raises(pulumi.RunError) as err:
        run_program(program, project="gpu-ci", stack="x", config=config)
    one_line(
        str(err.value),
        f"config key gpu-ci:host: values nest more than {STACK_FILE.max_depth} levels deep",
    )


def test_json_depth_is_measured_outside_strings() -> None:
    text = json.dumps({"s": "[[[[[[" * 100, "q": 'a"b\\"[[[', "l": [[1]]})
    assert read_json.depth_problem(text, 3) is None
    assert read_json.depth_problem(text, 2) == 1
    assert read_json.depth_problem('{\n"a":\n[[\n[1]]]}', 3) == 4
