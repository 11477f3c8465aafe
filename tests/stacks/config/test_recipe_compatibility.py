"""The compatibility rules see what the real plan deploys: the host's pins with the GPU
operator version of the recipe this stack resolves, checked in `prepare`, before any
resource registers (not a pin only the tests read)."""

from __future__ import annotations

import pytest

from components.host.config.compat import Predicate, Rule, VersionRange
from stacks.compose import prepare
from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from stacks.config.recipe import (
    GPU_OPERATOR,
    PreparedPlatform,
    compatibility,
    compatibility_problems,
    deployed_version,
)
from stacks.context import StackContext
from stacks.offline.plan import REPO
from stacks.offline.stack_file.read import read_stack_file

CTX = StackContext(project="gpu-ci", stack="dev")


def example(stack: str) -> StackConfig:
    file = read_stack_file(REPO, stack)
    return load_config(raw_from_flat(file.config, set(file.secret_keys)), stack)


def platform_of(cfg: StackConfig) -> PreparedPlatform:
    prepared = prepare(cfg, CTX).platform
    assert prepared is not None
    return prepared.resolved


def test_the_dev_plan_checks_the_host_with_the_recipes_gpu_operator() -> None:
    cfg = example("dev")
    prepared = prepare(cfg, CTX)
    assert prepared.platform is not None
    version = deployed_version(prepared.platform.resolved, GPU_OPERATOR)
    assert version == "v26.7.0"  # the project catalog's registry, what is deployed
    report = prepared.compatibility
    assert report is not None and report.ok and report.warnings == ()


def test_a_stack_without_the_host_checks_nothing_here() -> None:
    """apps-dev deploys onto another stack's cluster: its host is not this stack's."""
    cfg = example("apps-dev")
    assert compatibility(cfg, platform_of(cfg)) is None


def test_an_operator_version_the_model_does_not_know_is_a_warning() -> None:
    cfg = example("dev")
    prepared = platform_of(cfg)
    component = prepared.recipe.component(GPU_OPERATOR)
    assert component is not None
    refs = [
        ref.model_copy(update={"version": "v27.1.0"}) if ref is component else ref
        for ref in prepared.recipe.componentRefs
    ]
    newer = PreparedPlatform(
        prepared.catalog,
        prepared.recipe.model_copy(update={"componentRefs": refs}),
        prepared.overrides,
    )
    report = compatibility(cfg, newer)
    assert report is not None and report.ok
    assert [f.rule for f in report.warnings] == ["unknown-gpu-operator-version"]


def test_a_known_bad_operator_combination_is_refused_at_the_host_versions_key() -> None:
    cfg = example("dev")
    rule = Rule(
        id="example-operator-breakage",
        when=Predicate(gpu_operator=VersionRange(at_least="26.7.0")),
        reason="an operator this host cannot run",
        fix="pin the operator below 26.7",
    )
    report = compatibility(cfg, platform_of(cfg), rules=(rule,))
    (problem,) = compatibility_problems(report)
    assert problem.key == "gpu-ci:host.versions"
    assert "known-bad combination with the recipe's GPU software" in str(problem)
    assert "example-operator-breakage" in str(problem)


def test_prepare_reports_the_combination_with_every_other_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rule = Rule(
        id="example-operator-breakage",
        when=Predicate(gpu_operator=VersionRange(at_least="26.7.0")),
        reason="an operator this host cannot run",
        fix="pin the operator below 26.7",
    )
    monkeypatch.setattr(
        "stacks.compose.compatibility",
        lambda cfg, prepared: compatibility(cfg, prepared, rules=(rule,)),
    )
    with pytest.raises(ConfigError, match=r"gpu-ci:host\.versions: known-bad combination"):
        prepare(example("dev"), CTX)
