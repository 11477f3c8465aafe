"""`stacks.yaml_text` uses libyaml, and libyaml reads and writes what PyYAML's pure-Python
safe loader and dumper do, for the documents gpu-ci renders and the upstream ones it reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from components.cloud_init import render_vm_user_data
from components.cluster import kind_config
from components.cluster.kind_config import NvkindClusterSpec, render_kind_config
from stacks import yaml_text

GOLDEN = Path(__file__).resolve().parents[1] / "cluster" / "golden"


def test_libyaml_is_used() -> None:
    assert yaml.__with_libyaml__, "PyYAML without libyaml: the plan would parse 5x slower"
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


def test_rendered_user_data_is_the_same_text_as_pure_pythons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """User data is an instance input: a byte of difference would replace every VM."""
    rendered = render_vm_user_data(project="gpu-ci", stack="dev", role="gpu", index=0)
    monkeypatch.setattr(yaml_text, "SafeDumper", yaml.SafeDumper)
    assert render_vm_user_data(project="gpu-ci", stack="dev", role="gpu", index=0) == rendered


def test_the_kind_config_is_the_same_text_as_pure_pythons() -> None:
    """The kind config's hash decides whether nvkind rebuilds the cluster."""

    class PurePython(yaml.SafeDumper):
        pass

    PurePython.add_representer(str, kind_config._str)
    spec = NvkindClusterSpec()
    data = kind_config.kind_cluster(spec, 2).model_dump(mode="json", exclude_none=True)
    expected = kind_config.HEADER + yaml.dump(
        data, Dumper=PurePython, sort_keys=False, default_flow_style=False, width=4096
    )
    assert render_kind_config(spec, 2) == expected


def test_every_document_of_a_stream_is_read() -> None:
    assert yaml_text.load_all("a: 1\n---\nb: [2, 3]\n") == [{"a": 1}, {"b": [2, 3]}]


def test_malformed_yaml_raises_pyyamls_error() -> None:
    with pytest.raises(yaml.YAMLError, match="line 2"):
        yaml_text.load("a: 1\n b: 2\n")
