"""A loaded catalog's files (`recipes.catalogs.catalog.Catalog`): each one is read, when it is
read, through the careful reader and inside the data directory it comes from; a name the
catalog does not hold is one error naming every data directory; a file's text is read once
per catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipes import Catalog, RecipeError, load_catalog
from tests.recipes.recipe_helpers import registry, write_files

VALUES = "components/a/values.yaml"
LINK = "components/a/link.yaml"


def _outside_hint(root: Path) -> str:
    return (
        f"a symlink that leads outside its data directory {root}; put the file itself in its "
        f"data directory {root} instead of a link to a file elsewhere"
    )


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    """Two data directories: `a` with a values file, `b` with a link to it (a file of
    another data directory), and a link in `a` to a file outside both."""
    a = write_files(tmp_path / "a", {"registry.yaml": registry("a"), VALUES: "replicas: 1\n"})
    b = write_files(tmp_path / "b", {"registry.yaml": registry("b")})
    (tmp_path / "beyond.yaml").write_text("token: not-for-the-catalog\n")
    (a / LINK).symlink_to(tmp_path / "beyond.yaml")
    (b / "components/b").mkdir(parents=True)
    (b / "components/b/values.yaml").symlink_to(a / VALUES)
    return a, b


@pytest.fixture
def catalog(roots: tuple[Path, Path]) -> Catalog:
    return load_catalog(list(roots))


def test_a_file_is_read_as_yaml_and_as_text(catalog: Catalog) -> None:
    assert catalog.read_yaml(VALUES) == {"replicas": 1}
    assert catalog.read_text(VALUES) == "replicas: 1\n"
    catalog.check_readable(VALUES, "overlays/x.yaml: valuesFile")  # a regular file inside


def test_a_file_of_the_catalog_that_leads_outside_is_refused_when_read(
    catalog: Catalog, roots: tuple[Path, Path]
) -> None:
    """Loading does not read files no document names; reading one checks it then, and the
    message names the file as the catalog knows it, never what it leads to."""
    refused = f"{LINK}: {_outside_hint(roots[0])}"
    for read in (catalog.read_yaml, catalog.read_text):
        with pytest.raises(RecipeError) as err:
            read(LINK)
        assert str(err.value) == refused
    with pytest.raises(RecipeError) as err:
        catalog.check_readable(LINK, "overlays/x.yaml: spec.componentRefs[0].valuesFile")
    assert str(err.value) == (
        f"overlays/x.yaml: spec.componentRefs[0].valuesFile: {_outside_hint(roots[0])}"
    )


def test_a_link_to_another_data_directory_is_outside_its_own(
    catalog: Catalog, roots: tuple[Path, Path]
) -> None:
    """Each file must lie in the data directory it comes from, not in any of the catalog's."""
    rel = "components/b/values.yaml"
    for read in (catalog.read_yaml, catalog.read_text):
        with pytest.raises(RecipeError) as err:
            read(rel)
        assert str(err.value) == f"{rel}: {_outside_hint(roots[1])}"
    with pytest.raises(RecipeError) as err:
        catalog.check_readable(rel, "registry.yaml: components[0]")
    assert str(err.value) == f"registry.yaml: components[0]: {_outside_hint(roots[1])}"


def test_a_name_the_catalog_does_not_hold_names_every_data_directory(
    catalog: Catalog, roots: tuple[Path, Path]
) -> None:
    message = f"components/a/other.yaml: file does not exist in {roots[0]}, {roots[1]}"
    for read in (catalog.read_yaml, catalog.read_text):
        with pytest.raises(RecipeError) as err:
            read("components/a/other.yaml")
        assert str(err.value) == message
    with pytest.raises(RecipeError) as err:
        catalog.check_readable("components/a/other.yaml", "overlays/x.yaml: valuesFile")
    assert str(err.value) == message


def test_a_broken_document_is_named_by_its_catalog_name(tmp_path: Path) -> None:
    root = write_files(tmp_path / "c", {"registry.yaml": registry("a"), VALUES: "a: [\n"})
    with pytest.raises(RecipeError) as err:
        load_catalog([root]).read_yaml(VALUES)
    assert str(err.value) == (
        f"{VALUES}: malformed YAML: line 2, column 1: expected the node content, but found "
        "'<stream end>'"
    )


def test_a_files_text_is_read_once_per_catalog(catalog: Catalog, roots: tuple[Path, Path]) -> None:
    """One catalog gives one text for a file however often it is asked (a health check's
    assertions compared with the file they came from see the same text); a catalog loaded
    after an edit reads the edited file."""
    assert catalog.read_text(VALUES) == "replicas: 1\n"
    (roots[0] / VALUES).write_text("replicas: 2\n")
    assert catalog.read_text(VALUES) == "replicas: 1\n"
    assert load_catalog(list(roots)).read_text(VALUES) == "replicas: 2\n"
