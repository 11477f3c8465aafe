"""The preview reads a Test's timeouts as Chainsaw v0.2.15 does (issue #40, "tests that can
only fail in the cluster"): every string of the table goes through the pinned `chainsaw`
binary, loading a Test with that `spec.timeouts.assert`, and the preview refuses exactly
the strings the binary cannot load (Go's `time.ParseDuration`), and those it loads but
that are not positive, which the binary applies as given and then fails the assert."""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.chainsaw_durations import DurationError, parse_ns
from components.platform.check_jobs import TEST_FILE, chainsaw_args
from components.platform.health_model import CHECKS_NAMESPACE, ClusterCheck
from core import yaml_text
from tests.components.platform.health_docs import WHERE, doc, parsed, refused
from tests.components.platform.recorded_cluster import Kind, RecordedApi, serving
from tests.upstream_tools import run_tool, tool

NS = 1
S = 1_000_000_000
LOADS = {
    "5m": 300 * S,
    "1m30s": 90 * S,
    "250ms": S // 4,
    "1.5h": 5400 * S,
    ".5s": S // 2,
    "5.s": 5 * S,
    "+5m": 300 * S,
    "1h-1m": None,  # a sign only leads
    "1µs": 1000,  # micro sign
    "1μs": 1000,  # Greek mu
    "1us": 1000,
    "0": 0,
    "+0": 0,
    "-0": 0,
    "0s": 0,
    "-5m": -300 * S,
    "00000000000000000000005s": 5 * S,
    "1.0000000000000000000000001s": S,
    "2562047h": 2562047 * 3600 * S,
    "2562047h47m16.854775807s": (1 << 63) - 1,
    "9223372036854775807ns": (1 << 63) - 1,
    "-9223372036854775808ns": -(1 << 63),
    "9223372036854775808ns": None,
    "2562047h47m16.854775808s": None,
    "2562048h": None,
    "3000000h": None,
    "99999999999999999999ns": None,
    "5 m": None,
    " 5m": None,
    "5m ": None,
    "5minutes": None,
    "5M": None,
    "5": None,
    "": None,
    "m": None,
    ".s": None,
    "-": None,
    "1..5s": None,
    "1e3s": None,
    "0x10s": None,
    "five minutes": None,
}
"""Each string: its nanoseconds as Go's ParseDuration gives them, or None where it refuses."""


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


def test_the_preview_parses_durations_as_chainsaw_loads_them(tmp_path: Path) -> None:
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
    for text, ns in LOADS.items():
        if ns is None:
            with pytest.raises(DurationError):
                parse_ns(text)
            assert "is not a duration Chainsaw can load" in refused(doc(timeouts={"assert": text}))
        else:
            assert parse_ns(text) == ns, text
            if ns <= 0:
                assert "is not a positive duration" in refused(doc(timeouts={"assert": text}))
            else:
                parsed(doc(timeouts={"assert": text}))


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
    (Path(__file__).parent / "data" / "cluster-ready.yaml").read_text(encoding="utf-8")
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
