"""`core.yaml_text` uses libyaml, and libyaml reads and writes what PyYAML's pure-Python
safe loader and dumper do, for the documents gpu-ci renders and the upstream ones it reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cluster import kind_config
from core import yaml_text
from recipes.cli import run as run_recipes
from stacks.offline.engine.values import reveal
from stacks.offline.plan import REPO, plan_run

GOLDEN = REPO / "tests" / "golden" / "cluster"


def test_libyaml_is_used() -> None:
    assert yaml.__with_libyaml__, "PyYAML was installed without libyaml"
    assert yaml_text.SafeLoader.__name__ == "CSafeLoader"
    assert yaml_text.SafeDumper.__name__ == "CSafeDumper"


def test_libyaml_reads_and_writes_the_same_data_as_pure_python(upstream: Path) -> None:
    docs = [(p.name, p.read_text()) for p in sorted(GOLDEN.glob("*.yaml"))] + [
        (str(p.relative_to(upstream)), p.read_text())
        for p in sorted((upstream / "charts").rglob("values.yaml"))
    ]
    assert len(docs) > 5
    for name, text in docs:
        data = yaml.load(text, Loader=yaml.SafeLoader)
        assert yaml_text.load(text) == data, name
        assert yaml.load(yaml_text.dump(data), Loader=yaml.SafeLoader) == data, name


def use_pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every gpu-ci YAML path on PyYAML's pure-Python loader and dumper, as before libyaml."""

    class KindDumper(yaml.SafeDumper):
        pass

    KindDumper.add_representer(str, kind_config._str)
    monkeypatch.setattr(yaml_text, "SafeDumper", yaml.SafeDumper)
    monkeypatch.setattr(yaml_text, "SafeLoader", yaml.SafeLoader)
    monkeypatch.setattr(kind_config, "_Dumper", KindDumper)


def inputs_of_the_example_stacks() -> dict[str, Any]:
    """Every registered input of the example stacks (user data, kind config, the kubeadm
    patch, manifests, ARC hook templates...)."""
    found = {}
    for stack in ("dev", "workstation", "gpu-dev", "arc"):
        run = plan_run(stack)
        found.update({r.urn: reveal(r.inputs) for r in run.registrations})
    return found


def recipe_outputs() -> list[str]:
    kind = ["--service", "kind", "--accelerator", "a10", "--intent", "training"]
    operator = "components.gpu-operator.values"
    return [
        run_recipes(["recipe", *kind, "--platform", "kubeflow"]),
        run_recipes(["query", *kind, "--selector", operator]),
        run_recipes(["query", *kind, "--selector", "deploymentOrder"]),
        run_recipes(["query", *kind, "--selector", f"{operator}.devicePlugin.config.name"]),
    ]


def test_what_gpu_ci_renders_is_the_same_text_as_pure_pythons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A byte of difference in user data would replace every VM, and in the kind config
    rebuild the cluster: libyaml must change no registered input."""
    with_libyaml = inputs_of_the_example_stacks(), recipe_outputs()
    assert len(with_libyaml[0]) > 100
    use_pure_python(monkeypatch)
    assert (inputs_of_the_example_stacks(), recipe_outputs()) == with_libyaml


def test_every_document_of_a_stream_is_read() -> None:
    assert yaml_text.load_all("a: 1\n---\nb: [2, 3]\n") == [{"a": 1}, {"b": [2, 3]}]


@pytest.mark.parametrize("read", [yaml_text.load, yaml_text.load_all])
def test_malformed_yaml_gets_the_pure_python_message_with_the_line_shown(
    read: Callable[[str], Any],
) -> None:
    text = "config:\n  gpu-ci:capacity: vm\n   gpu-ci:host: {}\n"
    with pytest.raises(yaml.YAMLError) as err:
        read(text)
    assert str(err.value) == (
        "mapping values are not allowed here\n"
        '  in "<unicode string>", line 3, column 15:\n'
        "       gpu-ci:host: {}\n"
        "                  ^"
    )
