"""`python -m stacks diff`: what a config change does to the planned graph, for a PR."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.diff.mermaid import render_changed_mermaid
from stacks.offline.diff.text import render_text
from stacks.offline.diff.words import show
from stacks.offline.plan import REPO, plan_stack
from stacks.offline.snapshot.recorded import dumps
from stacks.offline.snapshot.shape import Snapshot

# Pinning an older container toolkit re-runs its step and, through the digests chained in
# their stdin, every host step after it and the cluster's create/adopt and readiness
# check: in place, each an update. The runner, the kubeconfig and the platform are left as
# they are.
TOOLKIT_BUMP = {
    "host-0-container-toolkit",
    "host-0-toolkit-config",
    "host-0-inotify",
    "host-0-tools",
    "host-0-verify",
    "cluster-nvkind-cluster",
    "cluster-cluster-ready",
}


def diff_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "diff", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def dev_pair(tmp: Path, old: str, new: str) -> tuple[Path, Path]:
    """Snapshots of the dev stack as it is, and with `old` replaced by `new` in its file."""
    project = tmp / "project"
    project.mkdir()
    shutil.copy(REPO / "Pulumi.yaml", project / "Pulumi.yaml")
    dev = (REPO / "Pulumi.dev.yaml").read_text()
    bumped = dev.replace(old, new)
    assert bumped != dev
    (project / "Pulumi.dev.yaml").write_text(bumped)
    base, head = tmp / "base.json", tmp / "head.json"
    base.write_text(dumps(plan_stack("dev")))
    head.write_text(dumps(plan_stack("dev", project)))
    return base, head


@pytest.fixture(scope="module")
def toolkit_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The dev stack planned as it is, and with gpu-ci:host.versions.toolkit: 1.17.0-1."""
    return dev_pair(
        tmp_path_factory.mktemp("toolkit"),
        "    cdi: false\n",
        "    cdi: false\n    versions:\n      toolkit: 1.17.0-1\n",
    )


def table_rows(markdown: str) -> list[list[str]]:
    """The cells of the resources table (the one headed `| | resource | type | changed |`)."""
    lines = markdown.splitlines()
    start = lines.index("| | resource | type | changed |") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_a_toolkit_bump_names_exactly_the_steps_whose_inputs_change(
    toolkit_pair: tuple[Path, Path],
) -> None:
    base, head = toolkit_pair
    done = diff_cli(base, head, "--markdown")
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    rows = table_rows(done.stdout)
    names = [row[1].strip("`") for row in rows]
    assert set(names) == TOOLKIT_BUMP
    assert len(names) == len(TOOLKIT_BUMP)
    assert names[0] == "host-0-container-toolkit"  # listed in the order they run
    assert names.index("host-0-verify") < names.index("cluster-nvkind-cluster")
    assert all(row[0] == "~ update" for row in rows)  # stdin changed: re-run in place
    by_name = {row[1].strip("`"): row[3] for row in rows}
    assert by_name["host-0-container-toolkit"] == "`stdin`"
    assert by_name["host-0-verify"] == "`stdin`"
    out = done.stdout
    assert out.startswith("### Plan diff: `gpu-ci/dev`\n")
    unchanged = len(json.loads(base.read_text())["resources"]) - len(TOOLKIT_BUMP)
    assert f"**0 to create, 7 to update, 0 to replace, 0 to delete, {unchanged} unchanged" in out
    assert "[!CAUTION]" not in out  # nothing is destroyed
    # The script is summarized, never pasted: no line of it reaches the comment.
    assert "GPU_CI_STEP" not in out and "#!/usr/bin/env bash" not in out
    assert "(+1 -1 lines)" in out
    assert '| `cluster.facts["Host.toolkit.version"]` | `"1.17.8-1"` | `"1.17.0-1"` |' in out
    mermaid = out.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert mermaid.startswith("flowchart TD\n")
    assert mermaid.count(":::changed") == len(TOOLKIT_BUMP)
    assert '["host-0-docker<br/><small>Command</small>"]:::context' in mermaid
    assert "host-0-nvidia-driver" not in mermaid  # two steps away from any change


def test_plain_text_diff_and_the_exit_codes(toolkit_pair: tuple[Path, Path]) -> None:
    base, head = toolkit_pair
    done = diff_cli(base, head)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("gpu-ci/dev: 0 to create, 7 to update, 0 to replace, 0 to delete")
    assert lines[1] == " ~ command:remote:Command  host-0-container-toolkit"
    assert lines[2].startswith("      stdin: <") and "(+2 -2 lines)" in lines[2]
    same = diff_cli(base, base)
    count = len(json.loads(base.read_text())["resources"])  # dev's, as the tree plans it
    assert (same.returncode, same.stdout) == (0, f"gpu-ci/dev: no changes ({count} resources)\n")
    same_md = diff_cli(base, base, "--markdown")
    assert same_md.returncode == 0 and "No changes" in same_md.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the plan snapshot (No such file or directory)"),
        ("{", "not JSON (Expecting property name enclosed in double quotes at line 1"),
        ("[]", "not a plan snapshot (a JSON list, not an object)"),
        (
            '{"project": "gpu-ci", "stack": "dev", "resources": [{"urn": 1}]}',
            "not a plan snapshot (resources[0].urn is missing or not a str)",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, toolkit_pair: tuple[Path, Path], content: str | None, message: str
) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    done = diff_cli(toolkit_pair[0], bad)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"error: {bad}: {message}")
    assert len(done.stderr.splitlines()) == 1


def _resource(name: str, deps: tuple[str, ...] = (), **inputs: Any) -> dict[str, Any]:
    return {
        "urn": f"urn:pulumi:s::p::t:m:T::{name}",
        "type": "t:m:T",
        "name": name,
        "parent": "",
        "dependencies": [f"urn:pulumi:s::p::t:m:T::{d}" for d in deps],
        "inputs": inputs,
    }


def _snap(*resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> Snapshot:
    return {"project": "p", "stack": "s", "resources": list(resources), "outputs": outputs or {}}


def test_adds_removes_dependencies_and_masked_values() -> None:
    base = _snap(
        _resource("a", size=1, token="[secret]"),
        _resource("b", ("a",), script="x\n" * 40),
        _resource("gone"),
    )
    head = copy.deepcopy(base)
    head["resources"] = [
        _resource("a", size=2, token="[secret]", extra={"k": [1, 2]}),
        _resource("b", (), script="x\n" * 40),
        _resource("new", ("a",)),
    ]
    d = diff_snapshots(base, head)
    ops = {(r.op, r.name) for r in d.resources}
    # b only lost a dependency: the engine runs nothing for it ("same"), the diff says so;
    # no provider's rules cover t:m:T, so a's changed inputs cannot be predicted (never a
    # plain "update": rules.json `unknownTypes`)
    assert ops == {("may-replace", "a"), ("same", "b"), ("create", "new"), ("delete", "gone")}
    a = next(r for r in d.resources if r.name == "a")
    assert [(c.path, show(c.old), show(c.new)) for c in a.inputs] == [
        ("extra.k[0]", "(none)", "1"),
        ("extra.k[1]", "(none)", "2"),
        ("size", "1", "2"),
    ]
    b = next(r for r in d.resources if r.name == "b")
    assert b.inputs == () and b.deps_removed == ("t:m:T::a",)
    assert a.cannot_predict and a.maybe == ()
    text = render_text(d)
    assert text.splitlines()[1] == (
        "!! CANNOT PREDICT 1 resource(s): no replacement rules for t:m:T "
        "(add them to stacks/offline/lifecycle/replacements/)"
    )
    assert " ? t:m:T  a  (may-replace: CANNOT PREDICT: no replacement rules for t:m:T)" in text
    assert "depends on - a" in text
    assert "= t:m:T  b  (dependencies only: no operation)" in text
    assert "[secret]" not in text  # unchanged secrets are not listed at all
    markdown = render_markdown(d, base, head)
    assert "| + create | `new` | `t:m:T` |  |" in markdown
    assert "| - **delete** | `gone` | `t:m:T` |  |" in markdown
    assert "[!CAUTION]" not in markdown  # a deleted t:m:T is listed first, not called out
    assert (
        "> [!WARNING]\n> **The plans cannot tell whether 1 resource(s) are replaced (1 cannot "
        "be predicted at all).**\n>\n> - **may replace** `a` (`t:m:T`) — CANNOT PREDICT: no "
        "replacement rules for t:m:T\n"
    ) in markdown
    assert d.as_json()["changes"][0] == {
        "urn": "urn:pulumi:s::p::t:m:T::a",
        "type": "t:m:T",
        "name": "a",
        "op": "may-replace",
        "replaceBecause": [],
        "deleteBeforeReplace": False,
        "cannotPredict": True,
    }
    assert "- no longer depends on `a`" in markdown
    assert ":::added" in markdown and ":::removed" in markdown
    assert "-.->" in markdown  # the dropped edge a -> b, dotted


def test_values_are_short_and_table_safe() -> None:
    assert show("[secret]") == "[secret]"
    assert show("z" * 64).startswith("<64 chars, 1 line, sha256:")
    assert show("f" * 64) == "ffffffffffff…"
    assert show({"a": 1}) == '{"a": 1}'
    assert show(list(range(40))).startswith("<")
    base = _snap(_resource("a", v="x|y"))
    head = _snap(_resource("a", v="x|z"))
    markdown = render_markdown(diff_snapshots(base, head), base, head)
    assert '| `v` | `"x\\|y"` | `"x\\|z"` |' in markdown


def test_a_renamed_stack_compares_resource_by_resource() -> None:
    base = _snap(_resource("a", v=1))
    head = json.loads(json.dumps(base).replace("urn:pulumi:s::", "urn:pulumi:other::"))
    head["stack"] = "other"
    d = diff_snapshots(base, head)
    assert not d.changed and d.unchanged == 1
    assert render_text(d) == "p/s → p/other: no changes (1 resources)\n"


@pytest.fixture(scope="module")
def node_image_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The dev stack planned as it is, and with another node image (a new cluster)."""
    return dev_pair(
        tmp_path_factory.mktemp("node-image"),
        "    gpus: all\n",
        "    gpus: all\n    nodeImage: kindest/node:v1.34.3\n",
    )


def test_json_classification_of_a_toolkit_bump(
    toolkit_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    base, head = toolkit_pair
    out = tmp_path / "changes.json"
    assert diff_cli(base, head, "--json", out).returncode == 1
    changes = json.loads(out.read_text())["changes"]
    assert {c["name"] for c in changes} == TOOLKIT_BUMP
    assert {(c["op"], tuple(c["replaceBecause"]), c["deleteBeforeReplace"]) for c in changes} == {
        ("update", (), False)
    }
    assert all(
        set(c) >= {"urn", "type", "op", "replaceBecause", "deleteBeforeReplace"} for c in changes
    )


def test_a_new_cluster_leads_the_pr_comment_and_names_what_forced_it(
    node_image_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    base, head = node_image_pair
    out = tmp_path / "changes.json"
    done = diff_cli(base, head, "--markdown", "--json", out)
    assert done.returncode == 1, done.stderr
    md = done.stdout
    caution = md.index("> [!CAUTION]")
    assert caution < md.index("| | resource | type | changed |")  # destructive first
    assert (
        "> - **replace** `cluster-nvkind-cluster` (`command:remote:Command`): destroys the "
        "nvkind cluster (kind delete cluster; a new CA) — triggers[0] changed; deleted first"
    ) in md
    assert (
        "> - **replace** `platform-gpu-operator` (`kubernetes:helm.sh/v3:Release`): destroys "
        "a Helm release"
    ) in (md)
    rows = table_rows(md)
    first_update = next(i for i, row in enumerate(rows) if row[0] == "~ update")
    assert all(row[0] == "± **replace**" for row in rows[:first_update])
    by_name = {c["name"]: c for c in json.loads(out.read_text())["changes"]}
    cluster = by_name["cluster-nvkind-cluster"]
    assert (cluster["op"], cluster["replaceBecause"], cluster["deleteBeforeReplace"]) == (
        "replace",
        ["triggers[0]"],
        True,
    )
    assert by_name["cluster-k8s"]["replaceBecause"] == ["kubeconfig"]
    assert by_name["cluster-k8s"]["unknownAtPreview"] == ["kubeconfig"]
    assert by_name["platform-kubeflow-trainer"]["replaceBecause"] == ["provider"]
    assert by_name["cluster-cluster-ready"]["op"] == "update"


def test_an_unwritable_json_file_is_one_line_naming_the_flag(
    toolkit_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    base, head = toolkit_pair
    done = diff_cli(base, head, "--json", tmp_path / "missing" / "out.json")
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"error: --json {tmp_path / 'missing' / 'out.json'}: cannot write it"
    )
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_base_in_the_old_urn_spelling_draws_each_resource_once() -> None:
    """Plans written before the engine's URNs (the mock prefixed top-level resources with
    the stack's type): the diff, and its picture, match them by identity."""

    def spelled(top: str) -> list[dict[str, Any]]:
        vcn = {**_resource("vcn"), "urn": f"urn:pulumi:s::p::{top}t:m:T::vcn"}
        box = {**_resource("box"), "type": "t:m:Box", "custom": False}
        box["urn"] = f"urn:pulumi:s::p::{top}t:m:Box::box"
        step = {**_resource("step"), "urn": "urn:pulumi:s::p::t:m:Box$t:m:T::step"}
        step["parent"], step["dependencies"] = box["urn"], [vcn["urn"]]
        return [vcn, box, step]

    base, head = _snap(*spelled("pulumi:pulumi:Stack$")), _snap(*spelled(""))
    head["resources"][2]["inputs"] = {"size": 2}
    d = diff_snapshots(base, head)
    assert [(r.op, r.name) for r in d.resources] == [("may-replace", "step")]  # no rules
    mermaid = render_changed_mermaid(d, base, head)
    assert mermaid.count('["vcn<br/><small>T</small>"]') == 1
    assert "-.->" not in mermaid  # the edge is the same edge, not one dropped and one new


def test_a_new_stack_with_a_stack_reference_is_all_creates() -> None:
    """A consumer stack diffed against nothing (new in the PR, or its base did not plan):
    its StackReference is a read, new to the plan, neither created nor a crash."""
    head = plan_stack("apps-dev")
    empty = {"project": "gpu-ci", "stack": "apps-dev", "resources": [], "outputs": {}}
    result = diff_snapshots(empty, head)
    reads = [r for r in head["resources"] if r.get("read")]
    assert [r["type"] for r in reads] == ["pulumi:pulumi:StackReference"]
    assert result.count("create") == len(head["resources"]) - len(reads)
    assert {r.op for r in result.resources} == {"create"}


@pytest.mark.parametrize(
    "value",
    ["a``b<img src=x onerror=alert(1)>``", "`x`", "```", "a`b", "<b>bold</b>", "a ``` b"],
)
def test_a_value_cannot_close_its_code_span(value: str) -> None:
    """CommonMark closes a code span only on a backtick run of its own fence's length: the
    fence is one longer than the value's longest run, so a value's backticks (and any HTML
    after them) stay code in the PR comment."""
    base = _snap(_resource("a", v="old"))
    head = _snap(_resource("a", v=value))
    row = next(
        line
        for line in render_markdown(diff_snapshots(base, head), base, head).splitlines()
        if line.startswith("| `v` |")
    )
    cell = row.split(" | ")[2].removesuffix(" |")
    shown = json.dumps(value)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", shown)), default=0) + 1)
    pad = " " if "`" in shown else ""
    assert cell == f"{fence}{pad}{shown}{pad}{fence}"
