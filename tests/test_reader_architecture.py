"""Every YAML and JSON the program reads goes through the one careful reader.

`core.read_yaml` and `core.read_json` (with `core.read_files`) bound what a document may
cost: a regular file inside its folder, its size, depth and alias expansion. A direct
`yaml.safe_load`, `json.loads`, `yaml_text.load` or loader class elsewhere in production
code would read around those bounds, so this test reads the source of every production
module (AST, every call and `from ... import`) and fails on one, unless it is listed in
EXEMPT with why it needs no bounds. An entry that no longer matches fails too, so the list
shrinks as calls move to the reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PRODUCTION = ("core", "recipes", "stacks", "components", "policy", "tools", "bench", ".github")
TOP_LEVEL = ("__main__.py", "tasks.py")
READER = {"core/read_yaml.py", "core/read_json.py", "core/yaml_text.py"}
"""The reader itself: `core.yaml_text` holds the loaders and the unbounded `load` that the
reader and the exempt calls below use."""

LOADERS = {
    "yaml": {
        "load",
        "load_all",
        "safe_load",
        "safe_load_all",
        "full_load",
        "full_load_all",
        "unsafe_load",
        "unsafe_load_all",
        "compose",
        "compose_all",
        "parse",
        "scan",
    },
    "json": {"load", "loads", "JSONDecoder"},
    "yaml_text": {"load", "load_all"},
}
"""Module alias -> the names that parse YAML or JSON text."""

OWN_DATA = "text gpu-ci renders itself, checked after rendering"
VENDORED = (
    "the pinned charts' own Chart.yaml, values.yaml and values.schema.json, committed in "
    "recipes/chart-values and reviewed with the pin (never a user's file)"
)
EXEMPT: dict[tuple[str, str], str] = {
    ("components/oci/cloud_init.py", "yaml_text.load"): OWN_DATA + " (the user data)",
    ("components/platform/chart_values/lookup.py", "yaml_text.load"): VENDORED,
    ("components/platform/chart_values/lookup.py", "json.loads"): VENDORED,
    ("components/platform/chart_values/defaults.py", "yaml_text.load"): VENDORED,
    ("components/platform/chart_values/defaults.py", "yaml.compose"): VENDORED,
    ("components/platform/chart_values/comments.py", "yaml_text.load"): VENDORED
    + ": a value written in one of its comments",
    ("components/observability/dashboard.py", "json.loads"): OWN_DATA
    + " (the dashboard's own JSON, as Grafana reads it)",
    ("components/observability/queue_exporter/settings.py", "json.loads"): (
        "the queue-time exporter's own config file, in its pod with no project imports (stdlib "
        "only); read up to MAX_CONFIG_BYTES"
    ),
    ("components/observability/queue_exporter/github_api.py", "json.loads"): (
        "GitHub's API answers, in the exporter's pod (stdlib only); bodies read up to "
        "max_body_bytes, larger ones dropped and counted"
    ),
    ("components/observability/queue_exporter/jobs.py", "json.loads"): (
        "the exporter's own record of observed jobs on its emptyDir (stdlib only); read up to "
        "MAX_STATE_BYTES"
    ),
    ("components/host/scripts/reboot-wait.py", "json.loads"): (
        "a standalone script run on the deployer by pulumi-command, with no project imports: "
        "the driver step's result line, a single short JSON object"
    ),
    ("stacks/config/namespaces.py", "json.loads"): (
        "pulumi-plugin.json of the installed provider SDKs, from the hash-checked lock"
    ),
    ("stacks/offline/lifecycle/replacement_rules.py", "json.loads"): (
        "the committed replacement rules in stacks/offline/lifecycle/replacements (upstream facts)"
    ),
    ("stacks/offline/snapshot/paths.py", "json.loads"): (
        "one quoted path segment the diff wrote itself, a JSON string literal matched by a "
        "regular expression (no nesting)"
    ),
    ("stacks/offline/stack_file/read.py", "json.loads"): (
        "the CLI text of a config value of a stack file the careful reader already read "
        "(its depth bounded there)"
    ),
    ("tools/tasks/mutate.py", "json.loads"): "mutmut's own result files in the scratch tree",
    ("tools/tasks/upstream_tools.py", "json.loads"): (
        "`go mod download -json` of one pinned module: Go's own short answer (and tasks.py "
        "needs only the standard library)"
    ),
    ("tools/chainsaw_schema.py", "json.loads"): (
        "Chainsaw's published schema file a maintainer names, to write the shipped extract"
    ),
    ("bench/setup_critical_path.py", "json.loads"): OWN_DATA + " (a plan the bench wrote)",
    ("bench/sdk_replay.py", "json.loads"): OWN_DATA + " (the SDK's own serialized values)",
    ("bench/stack_facts.py", "json.loads"): OWN_DATA + " (the line its own plan process printed)",
    ("bench/setup_first_command.py", "json.loads"): OWN_DATA
    + " (the line its own import-count process printed)",
    ("bench/generated_stacks.py", "yaml_text.load"): "the project's own stack files",
    (".github/actions/gpu-cluster/scripts/outputs.py", "json.load"): (
        "`pulumi stack output --json` of the action's own stack"
    ),
    (".github/actions/gpu-cluster/scripts/outputs.py", "json.loads"): (
        "versions.json the configure step itself wrote"
    ),
    ("components/platform/chainsaw/expressions.py", "json.loads"): (
        "one JMESPath literal argument (a JSON string in backticks) of an expression in a Test "
        "the careful reader already read (its size bounded there); only a string is kept"
    ),
    ("components/platform/chainsaw/schema.py", "json.loads"): (
        "Chainsaw's published Test schema, committed beside it (components/platform/chainsaw)"
    ),
    (".github/actions/gpu-cluster/scripts/offline_plan.py", "json.loads"): (
        "the offline plan's JSON the step itself wrote"
    ),
    (".github/actions/gpu-cluster/scripts/configure.py", "json.loads"): (
        "stack.json the step itself wrote"
    ),
    (".github/actions/gpu-cluster/scripts/collect/collect_run.py", "json.loads"): (
        "the diagnostics collector (stdlib only: it also runs on a self-managed host without "
        "the program): kubectl's, helm's and pulumi's JSON answers and the action's own "
        "plan.json and versions.json, each at most 64 MiB; one that does not parse is a "
        "failed source in the bundle's summary"
    ),
}


def production_sources() -> list[Path]:
    found = [REPO / name for name in TOP_LEVEL if (REPO / name).is_file()]
    for top in PRODUCTION:
        found += (REPO / top).rglob("*.py")
    return sorted(
        p for p in found if "__pycache__" not in p.parts and "node_modules" not in p.parts
    )


def direct_reads(path: Path) -> set[str]:
    """`module.name` of each direct YAML or JSON parse in `path`'s source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module.rsplit(".", 1)[-1]
            found |= {f"{module}.{a.name}" for a in node.names if a.name in LOADERS.get(module, ())}
        elif isinstance(node, ast.Call):
            func = node.func
            owner = getattr(func, "value", None)
            module = owner.id if isinstance(owner, ast.Name) else ""
            if isinstance(func, ast.Attribute) and func.attr in LOADERS.get(module, ()):
                found.add(f"{module}.{func.attr}")
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.endswith("Loader"):
                found.add(f"{name}()")
    return found


def all_reads() -> dict[tuple[str, str], None]:
    reads: dict[tuple[str, str], None] = {}
    for path in production_sources():
        rel = path.relative_to(REPO).as_posix()
        if rel not in READER:
            reads.update(dict.fromkeys((rel, call) for call in sorted(direct_reads(path))))
    return reads


def test_production_code_reads_yaml_and_json_only_through_the_reader() -> None:
    unexpected = [f"{rel}: {call}" for rel, call in all_reads() if (rel, call) not in EXEMPT]
    assert unexpected == [], (
        "read YAML/JSON through core.read_yaml / core.read_json (or add the call to EXEMPT "
        f"with why it needs no bounds): {unexpected}"
    )


def test_every_exemption_still_matches_a_call() -> None:
    stale = sorted(set(EXEMPT) - set(all_reads()))
    assert stale == [], f"these calls are gone: drop them from EXEMPT: {stale}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import yaml\nyaml.safe_load(t)\n", {"yaml.safe_load"}),
        ("from yaml import safe_load as s\ns(t)\n", {"yaml.safe_load"}),
        ("import json\njson.loads(t)\n", {"json.loads"}),
        ("from core import yaml_text\nyaml_text.load_all(t)\n", {"yaml_text.load_all"}),
        ("import yaml\nyaml.CSafeLoader(t).get_single_node()\n", {"CSafeLoader()"}),
        ("import json\njson.dumps(v)\nyaml_text.dump(v)\n", set()),
    ],
)
def test_the_scan_finds_each_kind_of_direct_read(
    tmp_path: Path, source: str, expected: set[str]
) -> None:
    path = tmp_path / "module.py"
    path.write_text(source)
    assert direct_reads(path) == expected
