"""`check-charts`' flags and report on small recorded runs with small charts: the tools it
finds (Helm on PATH, Helm's repository cache), one line per stack then its findings, and its
exit codes (0 clean, 1 problems, 2 cannot run)."""

from __future__ import annotations

import argparse
import io
from collections.abc import Mapping
from pathlib import Path

import pytest

from core.errors import GpuCiError
from stacks.offline.charts.check import ChartTools
from stacks.offline.charts.cli import add_parser, check_charts, helm_cache, tools_from
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import REPO
from tests.stacks.offline.charts.scratch_charts import scratch_chart
from tests.stacks.offline.charts.synthetic_runs import (
    platform_parent,
    program_run,
    registration,
    release,
)
from tests.upstream_tools import tool

CLUSTER = {"cluster": {"kubernetesVersion": "v1.33.1"}}
NEEDS_HELM = (
    "check-charts needs Helm: give --helm PATH or put helm on PATH (gpu-ci checks with Helm "
    "v3.20.2, the Helm library pulumi-kubernetes embeds)"
)


def _args(*given: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["check-charts", *given])


@pytest.fixture
def charts(tmp_path: Path) -> Path:
    folder = tmp_path / "charts"
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata: {tag: {{ .Values.tag }}}\n"
    )
    scratch_chart(folder, "m", "tag: a\n", {"cm.yaml": template}, dirname="m-1.0.0")
    return folder


def _run(stack: str, values: dict[str, object], chart: str = "m") -> ProgramRun:
    return program_run(stack, [release("m", chart, "1.0.0", values, source="s.py:1")], CLUSTER)


def _check(
    charts: Path, runs: Mapping[str, ProgramRun | Exception], wanted: list[str], *more: str
) -> tuple[int, str]:
    out = io.StringIO()
    args = _args("--helm", str(tool("helm")), "--charts", str(charts), *more)
    code = check_charts(args, charts.parent, runs, wanted, out=out)
    return code, out.getvalue()


def test_helms_repository_cache_is_where_helm_itself_keeps_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(tmp_path / "given"))
    assert helm_cache() == tmp_path / "given"
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert helm_cache() == tmp_path / "xdg" / "helm" / "repository"
    monkeypatch.delenv("HELM_REPOSITORY_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert helm_cache() == tmp_path / "home" / ".cache" / "helm" / "repository"


def test_the_flags_name_the_tools_and_folders(tmp_path: Path, charts: Path) -> None:
    helm, validator = tool("helm"), tool("kubectl-validate")
    given = ["--helm", str(helm), "--charts", str(charts), "--charts", str(tmp_path)]
    args = _args(*given, "--validator", str(validator), "--crds", str(tmp_path), "--render-only")
    assert tools_from(args) == ChartTools(
        helm, (charts, tmp_path), validator, (tmp_path,), dead_values=False
    )
    assert tools_from(_args("--helm", str(helm), "--charts", str(charts))) == ChartTools(
        helm, (charts,), None, (), dead_values=True
    )


def test_helm_on_path_and_the_repository_cache_are_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, cache = tmp_path / "bin", tmp_path / "cache"
    bin_dir.mkdir()
    cache.mkdir()
    (bin_dir / "helm").symlink_to(tool("helm"))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(cache))
    assert tools_from(_args()) == ChartTools(bin_dir / "helm", (cache,))


def test_no_helm_anywhere_is_one_error_naming_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GpuCiError) as raised:
        tools_from(_args())
    assert str(raised.value) == NEEDS_HELM
    with pytest.raises(GpuCiError) as raised:
        tools_from(_args("--helm", str(tmp_path)))  # a folder, not Helm
    assert str(raised.value) == f"{NEEDS_HELM} [given: {tmp_path}]"


def test_a_crds_flag_that_is_no_folder_is_one_error(
    tmp_path: Path, charts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _check(charts, {}, [], "--crds", str(tmp_path / "none"))
    assert (code, out) == (2, "")
    assert capsys.readouterr().err == f"error: --crds {tmp_path / 'none'}: not a folder of CRDs\n"


def test_a_clean_stack_is_one_line_and_exit_0(charts: Path) -> None:
    assert _check(charts, {"a": _run("a", {"tag": "b"})}, ["a"]) == (
        0,
        "a: 1 releases rendered (Kubernetes v1.33.1), 0 problems\n",
    )


def test_problems_warnings_and_unchecked_releases_follow_the_stack_line(
    charts: Path,
) -> None:
    run = program_run(
        "a",
        [
            release("m", "m", "1.0.0", {"tagg": "b"}, source="s.py:1"),
            release("n", "n", "2.0.0", {}, source="s.py:2"),
        ],
        CLUSTER,
    )
    code, out = _check(charts, {"a": run}, ["a"])
    assert code == 1
    assert out.splitlines() == [
        "a: 1 releases rendered (Kubernetes v1.33.1), 1 problems",
        "  error: s.py:1 (gpu-ci's values of release m): tagg: the m chart (1.0.0) has no value "
        "'tagg' (did you mean 'tag'?); top-level keys: tag; so it changes nothing Helm "
        "renders: fix the path or remove it",
        f"  not checked: a/n (n 2.0.0): no n-2.0.0/ or .tgz in {charts} (`helm pull n "
        "--version 2.0.0` there)",
    ]


def test_a_stack_that_does_not_plan_or_cannot_be_checked_exits_2(
    charts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """And the others are still checked; 2 wins over 1."""
    runs: dict[str, ProgramRun | Exception] = {
        "bad": ValueError("no such thing"),
        "typo": _run("typo", {"tagg": "b"}),
    }
    code, out = _check(charts, runs, ["bad", "gone", "typo"])
    assert code == 2
    assert out.startswith("typo: 1 releases rendered (Kubernetes v1.33.1), 1 problems\n")
    assert capsys.readouterr().err == (
        "error: bad: does not plan: no such thing\nerror: gone: does not plan: not planned\n"
    )
    no_validator = tmp_path / "validator"
    no_validator.write_text("#!/bin/sh\necho broken >&2\nexit 3\n", encoding="utf-8")
    no_validator.chmod(0o755)
    code, out = _check(charts, {"a": _run("a", {})}, ["a"], "--validator", str(no_validator))
    assert (code, out) == (2, "")
    assert capsys.readouterr().err == "error: a: kubectl-validate failed (exit 3): broken\n"


def test_no_chart_of_any_release_exits_2_saying_how_to_give_one(
    charts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _check(charts, {"a": _run("a", {}, chart="x")}, ["a"])
    assert code == 2
    assert out.startswith("a: 0 releases rendered (Kubernetes v1.33.1), 0 problems\n")
    assert capsys.readouterr().err == (
        "error: no chart of any release was found: give --charts DIR\n"
    )


def test_a_stack_without_releases_is_clean(
    charts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check(charts, {"w": program_run("w", [])}, ["w"]) == (
        0,
        "w: 0 releases rendered (Kubernetes ?), 0 problems\n",
    )
    assert capsys.readouterr().err == ""


def test_the_report_goes_to_stdout_by_default(
    charts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _args("--helm", str(tool("helm")), "--charts", str(charts))
    assert check_charts(args, charts.parent, {"a": _run("a", {})}, ["a"]) == 0
    assert capsys.readouterr().out == "a: 1 releases rendered (Kubernetes v1.33.1), 0 problems\n"


def test_every_flag_parses_to_what_the_check_reads() -> None:
    given = "dev --all --charts a --charts b --helm h --validator v --crds c --crds d"
    args = _args(*given.split(), "--render-only", "--project-dir", "p")
    assert (args.stack, args.all, args.charts, args.helm, args.validator) == (
        "dev",
        True,
        [Path("a"), Path("b")],
        Path("h"),
        Path("v"),
    )
    assert (args.crds, args.render_only, args.project_dir) == (
        [Path("c"), Path("d")],
        True,
        Path("p"),
    )
    bare = _args()
    assert (bare.stack, bare.all, bare.charts, bare.helm, bare.validator) == (
        None,
        False,
        None,
        None,
        None,
    )
    assert (bare.crds, bare.render_only, bare.project_dir) == ([], False, None)
    with pytest.raises(SystemExit):
        bare.usage_error("give a STACK or --all")


def test_the_help_states_each_default_and_the_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser(prog="stacks")
    add_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    top = " ".join(capsys.readouterr().out.split())
    assert (
        "check-charts render every Helm release of a stack with helm template from its real "
        "chart; report values that change nothing (typos, dead values) and, with --validator, "
        "invalid objects (exit 0: clean, 1: problems, 2: cannot run)"
    ) in top
    with pytest.raises(SystemExit):
        parser.parse_args(["check-charts", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    for flag in [
        "stack stack name: Pulumi.STACK.yaml",
        "--all every Pulumi.*.yaml stack",
        "--charts DIR a folder of charts, <chart>-<version>/ or <chart>-<version>.tgz "
        "(repeatable; default: Helm's repository cache)",
        "--helm PATH default: helm on PATH",
        "--validator PATH kubectl-validate: also validate every rendered object for the "
        "cluster's Kubernetes version",
        "--crds DIR more CRDs for --validator (the charts' own are always used)",
        "--render-only render and validate; skip the dead values",
        "--project-dir DIR",
    ]:
        assert flag in said, flag


def test_a_charts_or_validator_flag_that_names_nothing_is_one_error(
    tmp_path: Path, charts: Path
) -> None:
    helm = str(tool("helm"))
    with pytest.raises(GpuCiError) as raised:
        tools_from(_args("--helm", helm, "--charts", str(charts), "--charts", str(tmp_path / "x")))
    assert str(raised.value) == f"--charts {tmp_path / 'x'}: not a folder of charts"
    with pytest.raises(GpuCiError) as raised:
        tools_from(_args("--helm", helm, "--charts", str(charts), "--validator", str(tmp_path)))
    assert str(raised.value) == f"--validator {tmp_path}: no such file (kubectl-validate)"


def test_a_stack_that_cannot_be_checked_leaves_the_next_one_checked(
    charts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = tmp_path / "validator"
    failing.write_text("#!/bin/sh\necho broken >&2\nexit 3\n", encoding="utf-8")
    failing.chmod(0o755)
    runs = {"a": _run("a", {}), "w": program_run("w", [])}  # w renders nothing to validate
    code, out = _check(charts, runs, ["a", "w"], "--validator", str(failing))
    assert (code, out) == (2, "w: 0 releases rendered (Kubernetes ?), 0 problems\n")
    assert capsys.readouterr().err == "error: a: kubectl-validate failed (exit 3): broken\n"


def test_one_stack_with_a_chart_found_is_enough_for_the_others_to_be_listed(
    charts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = {"a": _run("a", {}), "b": _run("b", {}, chart="x")}
    code, out = _check(charts, runs, ["a", "b"])
    assert code == 0
    assert out.splitlines()[2].startswith("  not checked: b/m (x 1.0.0): no x-1.0.0/ or .tgz")
    assert capsys.readouterr().err == ""


def test_a_stack_on_another_stacks_cluster_is_checked_for_its_version(charts: Path) -> None:
    cluster = program_run("cluster", [], {"cluster": {"kubernetesVersion": "v1.34.2"}})
    reference = registration("pulumi:pulumi:StackReference", "c", {"name": "o/p/cluster"})
    apps = program_run("apps", [reference, release("m", "m", "1.0.0", {})])
    code, out = _check(charts, {"apps": apps, "cluster": cluster}, ["apps"])
    assert (code, out) == (0, "apps: 1 releases rendered (Kubernetes v1.34.2), 0 problems\n")


def test_a_recipe_value_the_stack_turns_off_is_a_warning_at_its_values_file(
    tmp_path: Path,
) -> None:
    """The dev stack's recipe (read from its stack file) with a chart that prints the device
    plugin's default config only while its config name is set, which this stack clears. The
    catalog is gpu-ci's, outside this project: named by its full path."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text(encoding="utf-8"))
    (root / "Pulumi.t.yaml").write_text(
        (REPO / "Pulumi.dev.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: op}\ndata:\n"
        "  {{- with .Values.devicePlugin.config }}{{ if .name }}\n"
        "  default: {{ .default | quote }}{{ end }}{{ end }}\n  x: y\n"
    )
    values = "devicePlugin:\n  config:\n    name: ''\n    default: ''\n"
    scratch_chart(tmp_path / "charts", "op", values, {"cm.yaml": template}, dirname="op-1.0.0")
    parent = platform_parent()
    given = {"devicePlugin": {"config": {"default": "any"}}}
    run = program_run(
        "t", [parent, release("gpu-operator", "op", "1.0.0", given, parent=parent.urn)], CLUSTER
    )
    out = io.StringIO()
    args = _args("--helm", str(tool("helm")), "--charts", str(tmp_path / "charts"))
    assert check_charts(args, root, {"t": run}, ["t"], out=out) == 0
    head, warning = out.getvalue().splitlines()
    assert head == "t: 1 releases rendered (Kubernetes v1.33.1), 0 problems"
    assert warning == (
        f"  warning: {REPO}/recipes/catalog/components/gpu-operator/values-kind-a10.yaml: "
        "devicePlugin.config.default: 'devicePlugin.config.default' changes nothing the op "
        "chart (1.0.0) renders with this stack's other values: the recipe's value, for the "
        "stacks that leave its feature on; this one turns it off (nothing to fix unless the "
        "stack meant to use it)"
    )
