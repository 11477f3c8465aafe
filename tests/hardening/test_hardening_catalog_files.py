"""A file a catalog, a project or a plan folder names is read only when it is a regular file
inside its folder, within its size bound (issue #29, item 1).

Each attack plants a secret in a file outside the folder and links to it from inside; the
secret must reach no output: not `recipes query`, not the Helm values of a planned stack,
not a plan snapshot, not an error. A named pipe must be refused without being opened (the
test fails by deadline if the reader blocks on it), and an oversized file before it is read.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from core.errors import GpuCiError
from core.read_files import FileMissingError, FileRefusedError, read_bytes
from core.read_limits import CATALOG_FILE, size_text
from recipes import RecipeError, load_catalog
from recipes.cli import main as recipes_main
from stacks.offline.cli import main as stacks_main
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO
from stacks.program import main as program
from tests.deadlines import deadline
from tests.stacks.stack_helpers import flat

SECRET = "SECRET-OUTSIDE-THE-CATALOG"
CURRENT = "aicr.run/v1alpha2"
QUERY = ["--service", "kind", "--accelerator", "a10", "--intent", "training"]
PLATFORM = {"accelerator": "a10", "intent": "training", "platform": "kubeflow"}


def leaky_catalog(root: Path, **files: Any) -> Path:
    """A catalog adding component `leaky` (values `components/leaky/values.yaml`) in an
    overlay every kind query matches; `files` are written over it (a Path: a symlink)."""
    docs: dict[str, Any] = {
        "registry.yaml": {
            "apiVersion": CURRENT,
            "kind": "ComponentRegistry",
            "components": [
                {
                    "name": "leaky",
                    "helm": {
                        "defaultRepository": "https://charts.example/leaky",
                        "defaultChart": "example/leaky",
                        "defaultVersion": "1.0.0",
                        "defaultNamespace": "leaky",
                    },
                }
            ],
        },
        "overlays/leaky.yaml": {
            "kind": "RecipeMetadata",
            "apiVersion": CURRENT,
            "metadata": {"name": "leaky"},
            "spec": {
                "criteria": {"service": "kind"},
                "componentRefs": [{"name": "leaky", "valuesFile": "components/leaky/values.yaml"}],
            },
        },
        "components/leaky/values.yaml": {"replicas": 1},
        **files,
    }
    for rel, doc in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(doc, Path):
            path.symlink_to(doc)
        elif doc is not None:
            path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc))
    return root


def outside(tmp_path: Path, name: str = "outside.yaml") -> Path:
    """A file outside every catalog holding the secret (valid YAML values, manifests)."""
    path = tmp_path / "beyond" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: stolen}}\ndata: {{token: {SECRET}}}\n"
    )
    return path


def query(catalog: Path, capsys: pytest.CaptureFixture[str], selector: str) -> tuple[int, str]:
    data = ["--data", str(catalog), "--data", str(REPO / "recipes" / "catalog")]
    code = recipes_main(["query", *data, *QUERY, "--platform", "kubeflow", "--selector", selector])
    out, err = capsys.readouterr()
    return code, out + err


def plan_stack(catalog: Path) -> tuple[BaseException | None, list[Registration]]:
    """The program with the catalog layered under the project's, as `pulumi up` runs it."""
    values = {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "local"},
        "gpu-ci:cluster": {"name": "gpu-ci"},
        "gpu-ci:platform": {**PLATFORM, "catalogs": [str(catalog)]},
    }
    registered: list[Registration] = []
    try:
        run_program(
            program, project="gpu-ci", stack="leak", config=flat(values), registrations=registered
        )
    except (GpuCiError, pulumi.RunError) as err:
        return err, registered
    return None, registered


def test_a_symlinked_values_file_leaks_into_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = outside(tmp_path)
    catalog = leaky_catalog(tmp_path / "cat", **{"components/leaky/values.yaml": target})
    code, shown = query(catalog, capsys, "components.leaky.values")
    assert code == 2
    assert SECRET not in shown
    assert shown.count("\n") == 1 and "Traceback" not in shown
    assert "components/leaky/values.yaml" in shown and "symlink that leads outside" in shown
    assert str(target) not in shown  # nor where the link leads

    error, registered = plan_stack(catalog)
    assert error is not None and SECRET not in str(error)
    assert "gpu-ci:platform.catalogs" in str(error) and "values.yaml" in str(error)
    assert registered == []  # no Helm release, so no values anywhere


def test_the_plan_snapshot_holds_nothing_of_a_linked_file(tmp_path: Path) -> None:
    catalog = leaky_catalog(tmp_path / "cat", **{"components/leaky/values.yaml": outside(tmp_path)})
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    stack = {
        "config": {
            "gpu-ci:capacity": "none",
            "gpu-ci:host": {"target": "local"},
            "gpu-ci:cluster": {"name": "gpu-ci"},
            "gpu-ci:platform": {**PLATFORM, "catalogs": [str(catalog)]},
        }
    }
    (project / "Pulumi.leak.yaml").write_text(yaml.safe_dump(stack))
    snapshot = tmp_path / "leak.json"
    code = stacks_main(["plan", "leak", "--project-dir", str(project), "--json", str(snapshot)])
    assert code != 0
    assert not snapshot.exists() or SECRET not in snapshot.read_text()


@pytest.mark.parametrize(
    ("rel", "reference"),
    [
        ("components/leaky/manifests/cm.yaml", "manifestFiles"),
        ("components/leaky/health-check.yaml", "healthCheck.assertFile"),
        ("overlays/other.yaml", None),
        ("mixins/m.yaml", None),
        ("registry.yaml", None),
    ],
)
def test_every_file_a_catalog_reads_must_stay_inside_it(
    tmp_path: Path, rel: str, reference: str | None
) -> None:
    catalog = leaky_catalog(tmp_path / "cat", **{rel: outside(tmp_path)})
    if reference == "manifestFiles":
        overlay = yaml.safe_load((catalog / "overlays/leaky.yaml").read_text())
        overlay["spec"]["componentRefs"][0]["manifestFiles"] = [rel]
        (catalog / "overlays/leaky.yaml").write_text(yaml.safe_dump(overlay))
    if reference == "healthCheck.assertFile":
        registry = yaml.safe_load((catalog / "registry.yaml").read_text())
        registry["components"][0]["healthCheck"] = {"assertFile": rel}
        (catalog / "registry.yaml").write_text(yaml.safe_dump(registry))
    with pytest.raises(RecipeError) as err:
        load_catalog([catalog])
    message = str(err.value)
    assert message.startswith(rel) or f": {rel}: a symlink" in message, message
    assert "symlink that leads outside its data directory" in message
    assert SECRET not in message and "beyond" not in message


def test_a_symlink_inside_the_catalog_is_read(tmp_path: Path) -> None:
    catalog = leaky_catalog(tmp_path / "cat")
    (catalog / "components/leaky/shared.yaml").write_text("replicas: 3\n")
    (catalog / "components/leaky/values.yaml").unlink()
    (catalog / "components/leaky/values.yaml").symlink_to(catalog / "components/leaky/shared.yaml")
    assert load_catalog([catalog]).read_yaml("components/leaky/values.yaml") == {"replicas": 3}


def test_a_named_pipe_as_values_file_is_refused_unopened(tmp_path: Path) -> None:
    catalog = leaky_catalog(tmp_path / "cat", **{"components/leaky/values.yaml": None})
    os.mkfifo(catalog / "components/leaky/values.yaml")
    with deadline(20), pytest.raises(RecipeError) as err:
        load_catalog([catalog])
    assert str(err.value) == (
        "overlays/leaky.yaml: spec.componentRefs[0].valuesFile: components/leaky/values.yaml: "
        "a named pipe (FIFO), not a regular file; replace it with a regular file"
    )


def test_a_named_pipe_as_overlay_is_refused_unopened(tmp_path: Path) -> None:
    catalog = leaky_catalog(tmp_path / "cat")
    os.mkfifo(catalog / "overlays/piped.yaml")
    with deadline(20), pytest.raises(RecipeError, match=r"^overlays/piped\.yaml: a named pipe"):
        load_catalog([catalog])


def test_a_socket_as_manifest_is_refused(tmp_path: Path) -> None:
    catalog = leaky_catalog(tmp_path / "cat")
    overlay = yaml.safe_load((catalog / "overlays/leaky.yaml").read_text())
    overlay["spec"]["componentRefs"][0]["manifestFiles"] = ["components/leaky/m.yaml"]
    (catalog / "overlays/leaky.yaml").write_text(yaml.safe_dump(overlay))
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(catalog / "components/leaky/m.yaml"))
        with pytest.raises(RecipeError, match=r"components/leaky/m\.yaml: a socket, not a regular"):
            load_catalog([catalog])


def test_an_oversized_values_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    catalog = leaky_catalog(tmp_path / "cat")
    with (catalog / "components/leaky/values.yaml").open("w") as big:
        big.write("replicas: 1\n")
        big.truncate(CATALOG_FILE.max_bytes + 1)  # sparse: nothing to read but its size
    with pytest.raises(RecipeError) as err:
        load_catalog([catalog])
    assert str(err.value) == (
        "overlays/leaky.yaml: spec.componentRefs[0].valuesFile: components/leaky/values.yaml: "
        "4.0 MiB, more than the 4 MiB a recipe catalog file may be (the largest file of "
        "AICR's catalogs (v0.11.1 and 2026-07-09) is the 585 KiB Gateway API CRDs: 5 "
        "documents, 9,120 values, 24 deep); make it smaller"
    )


# -- stack files, ESC definitions and plan folders -----------------------------------------------


def project(tmp_path: Path, stack_text: str | Path) -> Path:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    (root / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    if isinstance(stack_text, Path):
        (root / "Pulumi.leak.yaml").symlink_to(stack_text)
    else:
        (root / "Pulumi.leak.yaml").write_text(stack_text)
    return root


def test_a_stack_file_linked_from_elsewhere_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, outside(tmp_path))
    assert stacks_main(["plan", "leak", "--project-dir", str(root)]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert "Pulumi.leak.yaml: a symlink that leads outside the project folder" in err


def test_an_esc_definition_linked_from_elsewhere_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "environment: [gpu-ci/leak]\nconfig:\n  gpu-ci:capacity: none\n")
    (root / "esc" / "gpu-ci").mkdir(parents=True)
    (root / "esc/gpu-ci/leak.yaml").symlink_to(outside(tmp_path))
    with deadline(60):
        assert stacks_main(["plan", "leak", "--project-dir", str(root)]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert "esc/gpu-ci/leak.yaml: a symlink that leads outside the project folder" in err


def test_an_esc_definition_that_is_a_pipe_does_not_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "environment: [gpu-ci/leak]\nconfig:\n  gpu-ci:capacity: none\n")
    (root / "esc" / "gpu-ci").mkdir(parents=True)
    os.mkfifo(root / "esc/gpu-ci/leak.yaml")
    with deadline(60):
        assert stacks_main(["plan", "leak", "--project-dir", str(root)]) == 2
    assert (
        "esc/gpu-ci/leak.yaml: a named pipe (FIFO), not a regular file" in capsys.readouterr().err
    )


def plan_dirs(tmp_path: Path) -> tuple[Path, Path]:
    snapshot = {"project": "gpu-ci", "stack": "dev", "resources": [], "outputs": {}}
    base, head = tmp_path / "base", tmp_path / "head"
    for folder in (base, head):
        folder.mkdir()
        (folder / "dev.json").write_text(json.dumps(snapshot))
    return base, head


def test_plan_folder_files_linked_from_elsewhere_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = plan_dirs(tmp_path)
    (head / "apps.error").symlink_to(outside(tmp_path))  # its reason would be printed
    (head / "arc.json").symlink_to(outside(tmp_path, "snapshot.json"))
    with deadline(60):
        code = stacks_main(["diff", str(base), str(head)])
    out, err = capsys.readouterr()
    assert code == 2
    assert SECRET not in out + err
    assert "apps.error: a symlink that leads outside" in err
    assert "arc.json: a symlink that leads outside" in err


def test_a_pipe_in_a_plan_folder_does_not_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = plan_dirs(tmp_path)
    os.mkfifo(head / "apps.error")
    os.mkfifo(head / "arc.json")
    with deadline(60):
        code = stacks_main(["diff", str(base), str(head)])
    err = capsys.readouterr().err
    assert code == 2
    assert "apps.error: a named pipe (FIFO), not a regular file" in err
    assert "arc.json: a named pipe (FIFO), not a regular file" in err


# -- the file reader itself ---------------------------------------------------------------------


def test_a_sibling_folder_that_starts_like_the_root_is_outside_it(tmp_path: Path) -> None:
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat-private").mkdir()
    (tmp_path / "cat-private/key.yaml").write_text(f"token: {SECRET}\n")
    (tmp_path / "cat/values.yaml").symlink_to(tmp_path / "cat-private/key.yaml")
    with pytest.raises(FileRefusedError, match=r"^values\.yaml: a symlink that leads outside"):
        read_bytes(
            tmp_path / "cat/values.yaml",
            name="values.yaml",
            limits=CATALOG_FILE,
            root=tmp_path / "cat",
        )


def test_what_is_not_a_regular_file_is_named_as_what_it_is(tmp_path: Path) -> None:
    (tmp_path / "folder.yaml").mkdir()
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "gone.yaml")
    with pytest.raises(FileRefusedError, match=r"^folder\.yaml: a directory, not a regular file"):
        read_bytes(tmp_path / "folder.yaml", name="folder.yaml", limits=CATALOG_FILE)
    with pytest.raises(FileMissingError, match=r"^dangling\.yaml: no such file$"):
        read_bytes(tmp_path / "dangling.yaml", name="dangling.yaml", limits=CATALOG_FILE)


def test_sizes_are_named_as_people_read_them() -> None:
    assert [size_text(n) for n in (120, 2048, 599_000, 4 * 1024 * 1024)] == [
        "120 bytes",
        "2 KiB",
        "585.0 KiB",
        "4 MiB",
    ]
