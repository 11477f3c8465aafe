"""`gpu-ci:platform.catalogs` names folders of the project (Pulumi.yaml's folder), wherever
the program's own files are: `pulumi up` runs the program there, `--project-dir` plans it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from stacks.offline.cli import main

REPO = Path(__file__).resolve().parents[3]
REGISTRY = "apiVersion: aicr.run/v1alpha2\nkind: ComponentRegistry\ncomponents: []\n"


def _project(tmp_path: Path, catalogs: list[str]) -> Path:
    """The dev stack in a project folder of its own, adding `catalogs` to its platform."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(REPO / "Pulumi.yaml", root)
    document = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text())
    document["config"]["gpu-ci:platform"]["catalogs"] = catalogs
    (root / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    return root


def test_a_relative_catalog_is_a_folder_of_the_project_dir(tmp_path: Path) -> None:
    root = _project(tmp_path, ["team-catalog"])
    (root / "team-catalog").mkdir()
    (root / "team-catalog" / "registry.yaml").write_text(REGISTRY)
    out = tmp_path / "dev.json"
    assert main(["plan", "dev", "--project-dir", str(root), "--quiet", "--json", str(out)]) == 0
    assert out.stat().st_size > 0


def test_a_missing_one_is_named_in_the_project_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The checkout has a folder of that name; the project being planned does not.
    root = _project(tmp_path, ["recipes"])
    assert main(["plan", "dev", "--project-dir", str(root), "--quiet"]) == 2  # bad input
    err = capsys.readouterr().err
    assert (
        f"gpu-ci:platform.catalogs[0]: not a directory (in the project, {root}) [given: 'recipes']"
    ) in err
