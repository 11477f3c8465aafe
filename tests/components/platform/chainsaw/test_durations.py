"""The preview reads a Test's timeouts as Chainsaw v0.2.15 does (issue #40, "tests that can
only fail in the cluster"): every string of the table (`go_durations.py`) goes through the
pinned `chainsaw` binary, loading a Test with that `spec.timeouts.assert`, which loads exactly
the strings the table says Go's `time.ParseDuration` parses, and gives each the table's
nanoseconds; `test_durations_go.py` holds the preview's parser to the table. Those
it loads but that are not positive the binary applies as given, and then fails the assert."""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from components.platform.checks.jobs import TEST_FILE, chainsaw_args
from components.platform.checks.model import CHECKS_NAMESPACE, ClusterCheck
from core import yaml_text
from tests.components.platform.chainsaw.go_durations import LOADS
from tests.components.platform.chainsaw_runs import run_script
from tests.components.platform.health_docs import WHERE, doc, refused
from tests.components.platform.recorded_cluster import Kind, RecordedApi, serving
from tests.upstream_tools import run_tool, tool


def _loads(index: int, text: str, root: Path) -> bool:
    """Whether `chainsaw test --no-cluster` loads a Test with `text` as its assert timeout."""
    folder = root / str(index)
    folder.mkdir()
    test = doc(timeouts={"assert": text})
    (folder / TEST_FILE).write_text(yaml_text.dump(test), encoding="utf-8")
    done = run_tool("chainsaw", "test", "--test-dir", folder, "--no-cluster", "--no-color")
    output = done.stdout + done.stderr
    assert "Loading tests..." in output, output
    return "Error: time: " not in output


def test_chainsaw_loads_exactly_the_strings_go_parses(tmp_path: Path) -> None:
    tool("chainsaw")  # skips (or fails under CI) here, not in a worker
    texts = list(LOADS)
    with ThreadPoolExecutor(max_workers=4) as pool:
        loaded = dict(
            zip(
                texts,
                pool.map(lambda i: _loads(i, texts[i], tmp_path), range(len(texts))),
                strict=True,
            )
        )
    assert loaded == {text: ns is not None for text, ns in LOADS.items()}


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CHECKS_NAMESPACE}}


def _probing(values: dict[str, int]) -> dict[str, Any]:
    """A Test with a step per string, whose one assert passes at once iff Chainsaw gives it
    that many nanoseconds (`$timeouts`: v0.2.15 `pkg/runner/context/context.go`)."""
    steps = [
        {
            "name": f"s{index}",
            "timeouts": {"assert": text},
            "try": [
                {"assert": {"resource": {**NAMESPACE, "(to_string($timeouts.assert))": f"{ns}"}}}
            ],
        }
        for index, (text, ns) in enumerate(values.items())
    ]
    return {**doc(), "spec": {"steps": steps}}


def test_chainsaw_gives_each_timeout_the_tables_nanoseconds() -> None:
    # Those of at least 0.1s: a shorter one has passed before the assert first reads.
    values = {t: ns for t, ns in LOADS.items() if ns is not None and ns >= 100_000_000}
    assert len(values) >= 10
    assert run_script(_probing(values), [], quick=False).verdict == (
        "gpu-ci check recorded: passed (Test t)"
    )
    # the probe itself: one nanosecond off fails (at once: that step's timeout is 0.25s)
    run = run_script(_probing({**values, "250ms": 250_000_001}), [], quick=False)
    assert run.verdict.startswith("gpu-ci check recorded: FAILED (Test t, step s"), run.output


def test_each_duration_refusal_names_the_key_and_why() -> None:
    assert refused(doc(timeouts={"assert": "3000000h"})) == (
        f"{WHERE}: spec.timeouts.assert: '3000000h' is not a duration Chainsaw can load "
        "(longer than Go's time.Duration holds, about 2562047h); write one such as 90s, 5m "
        "or 1h30m"
    )
    assert refused(doc(timeouts={"error": "5 m"})) == (
        f"{WHERE}: spec.timeouts.error: '5 m' is not a duration Chainsaw can load (unknown "
        "unit ' m'); write one such as 90s, 5m or 1h30m"
    )
    assert refused(doc(delayBeforeCleanup="5minutes")) == (
        f"{WHERE}: spec.delayBeforeCleanup: '5minutes' is not a duration Chainsaw can load "
        "(unknown unit 'minutes'); write one such as 90s, 5m or 1h30m"
    )
    zero = doc({"assert": {"resource": {"apiVersion": "v1", "kind": "Pod"}, "timeout": "0s"}})
    assert refused(zero) == (
        f"{WHERE}: spec.steps[0].try[0].assert.timeout: '0s' is not a positive duration; "
        "Chainsaw would give the operation no time and the check would fail on every run "
        "(write one such as 5m)"
    )
    step = doc()
    step["spec"]["steps"][0]["timeouts"] = {"error": "-5m"}
    assert refused(step).startswith(f"{WHERE}: spec.steps[0].timeouts.error: '-5m' is not a")


READY: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parents[1] / "data" / "cluster-ready.yaml").read_text(encoding="utf-8")
)


def _run(timeout: str) -> tuple[int, str]:
    """The Job's `chainsaw test` on a Test asserting a Node the recorded cluster has, with
    `timeout` as the Test's assert timeout, exactly as written."""
    test = doc(
        {"assert": {"resource": {"apiVersion": "v1", "kind": "Node"}}}, timeouts={"assert": timeout}
    )
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CHECKS_NAMESPACE}}
    api = RecordedApi([*READY, namespace], [Kind("v1", "Node"), Kind("v1", "Namespace")])
    check = ClusterCheck(name="zero", kind="chainsaw", summary="", timeout_s=90)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / TEST_FILE).write_text(yaml_text.dump(test), encoding="utf-8")
        args = [
            str(folder) if a == "/checks" else a for a in chainsaw_args(check, CHECKS_NAMESPACE)
        ]
        with serving(api, folder) as (kubeconfig, _seen):
            done = run_tool("chainsaw", *args, env={"KUBECONFIG": str(kubeconfig)}, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_chainsaw_fails_an_assert_whose_timeout_is_not_positive() -> None:
    tool("chainsaw")
    assert _run("5s")[0] == 0
    for timeout in ("0s", "-1m"):
        code, output = _run(timeout)
        assert code != 0, output
        assert "context deadline exceeded" in output, output
