"""Small charts written in a test's folder, for the pinned Helm to render or read in well
under a second (the vendored charts take seconds per render)."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.upstream_tools import run_tool


def scratch_chart(
    folder: Path,
    name: str,
    values: str | None,
    templates: dict[str, str] | None = None,
    *,
    meta: dict[str, object] | None = None,
    dirname: str | None = None,
) -> Path:
    """A chart `name` (apiVersion v2, version 0.1.0 unless `meta` says otherwise) in
    `folder/name` (or `folder/dirname`) with `values` as its values.yaml (None: no
    values.yaml) and `templates`."""
    chart = folder / (dirname or name)
    (chart / "templates").mkdir(parents=True)
    doc: dict[str, object] = {"apiVersion": "v2", "name": name, "version": "0.1.0"}
    doc.update(meta or {})
    (chart / "Chart.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    if values is not None:
        (chart / "values.yaml").write_text(values, encoding="utf-8")
    for file, text in (templates or {}).items():
        (chart / "templates" / file).write_text(text, encoding="utf-8")
    return chart


def packed(chart: Path, into: Path) -> Path:
    """`helm package` of `chart` into `into`: the `<name>-<version>.tgz` `helm pull` writes."""
    into.mkdir(parents=True, exist_ok=True)
    done = run_tool("helm", "package", chart, "--destination", into)
    assert done.returncode == 0, done.stderr
    (tgz,) = into.glob("*.tgz")
    return tgz
