"""The config reference in docs/configuration.md is the models' own
(stacks/config/reference.py), so it cannot drift from the code; and the page's example
error is what the program prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, SecretStr

from stacks.config.reference import END, START, main, readme_copy, reference_rows, render_reference
from stacks.config.stack import StackConfig
from stacks.offline.plan import REPO

CONFIGURATION = REPO / "docs" / "configuration.md"
REGENERATE = (
    "regenerate it: .venv/bin/python -m stacks.config.reference --write docs/configuration.md"
)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """Every model an annotation can hold, through unions, Annotated, lists and tuples."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def _reachable() -> list[type[BaseModel]]:
    """StackConfig and every model below it."""
    found: list[type[BaseModel]] = [StackConfig]
    for model in found:  # grows while it is walked
        for info in model.model_fields.values():
            found += [m for m in _models_in(info.annotation) if m not in found]
    return found


def _holds_secret(annotation: Any) -> bool:
    return annotation is SecretStr or any(_holds_secret(arg) for arg in get_args(annotation))


def test_the_configuration_page_holds_the_generated_reference() -> None:
    text = CONFIGURATION.read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1
    assert readme_copy(text) == render_reference(), REGENERATE


def test_every_field_of_every_model_is_a_row() -> None:
    covered = {field for row in reference_rows() for field in row.fields}
    missing = [
        f"{model.__name__}.{name}"
        for model in _reachable()
        for name in model.model_fields
        if (model, name) not in covered
    ]
    assert not missing
    assert len(_reachable()) > 30  # the walk found the nested models (sanity)
    table = render_reference()
    for row in reference_rows():
        assert f"| `{row.key}`" in table


def test_every_field_has_a_description() -> None:
    undescribed = [
        f"{model.__name__}.{name}"
        for model in _reachable()
        for name, info in model.model_fields.items()
        if not (info.description or "").strip()
    ]
    assert not undescribed
    for row in reference_rows():  # a `default: X; ...` description keeps a meaning too
        assert row.meaning.removeprefix("(secret) ").strip(), row.key
        assert row.default.strip(), row.key


def test_credentials_are_marked_secret_and_nothing_else_is() -> None:
    for row in reference_rows():
        model, name = row.fields[0]
        secret = _holds_secret(model.model_fields[name].annotation)
        assert row.meaning.startswith("(secret) ") == secret, row.key
    secrets = {row.key for row in reference_rows() if row.meaning.startswith("(secret)")}
    assert {
        "arc.cluster.kubeconfig",
        "arc.githubApp.privateKey",  # runner.githubApp's fields are listed there
        "arc.scaleSets[].ociCredentials.privateKey",
        "host.privateKey",
        "host.proxy.privateKey",
    } <= secrets


def _row(key: str, variant: str | None = None) -> tuple[str, str]:
    rows = [
        r
        for r in reference_rows()
        if r.key == key and (variant is None or r.variants[-1:] == (variant,))
    ]
    assert len(rows) == 1, (key, variant, rows)
    return rows[0].default, rows[0].meaning


def test_defaults_come_from_the_models() -> None:
    assert _row("capacity")[0] == "`none`"
    assert _row("vm.shape")[0] == "`VM.GPU.A10.1`"
    assert _row("vm.image.operatingSystemVersion")[0] == '`"24.04"`'  # a string, quoted
    assert _row("network.dnsLabel")[0] == "`gpuci`"
    assert _row("arc.runnersNamespace")[0] == "`arc-runners`"
    assert _row("usage.jobsPerDay")[0] == "`10`"
    assert _row("host.user", "oci-vm")[0] == "`ubuntu`"
    assert _row("host.user", "ssh")[0] == "required"  # no default for an existing host
    assert _row("host.address", "ssh")[0] == "required"
    # A nested model's default instance gives the defaults below it.
    assert _row("arc.controller.resources.requests.cpu")[0] == "`100m`"
    assert _row("arc.cluster.oke.cpuPool.ocpus")[0] == "`2`"
    assert _row("arc.cluster.oke.gpuPool.ocpus")[0] == "none"
    # Conditional requirements, as the validators enforce them.
    assert _row("compartmentId")[0].startswith("required when `capacity: vm`")
    assert _row("arc")[0] == "required when `capacity: arc`"
    assert _row("host.gpus", "local")[0] == "required for `cluster.gpus: one-per-gpu`"


def test_unions_get_a_tag_row_then_shared_then_own_fields() -> None:
    keys = [(r.key, r.variants) for r in reference_rows() if r.key.startswith("host.")]
    assert keys[0] == ("host.target", ())
    default, meaning = _row("host.target")
    assert default == "required"
    assert all(f"`{tag}`: " in meaning for tag in ("oci-vm", "ssh", "local"))
    assert ("host.arch", ()) in keys  # every target has it: one row
    assert ("host.address", ("ssh",)) in keys
    assert ("host.gpus", ("ssh",)) in keys and ("host.gpus", ("local",)) in keys
    assert ("host.proxy.hostKey", ("ssh",)) in keys
    assert "| `arc.scaleSets[].launcherImage` *(vm-launcher)* |" in render_reference()
    assert "| `arc.scaleSets[].gpus` *(gpu-pod)* |" in render_reference()


def test_the_cli_prints_the_table_and_writes_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "stacks.config.reference"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, render_reference(), "")
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\nbefore\n\n{START}\n| stale |\n{END}\n\nafter\n")
    assert main(["--write", str(readme)]) == 0
    assert readme.read_text() == (
        f"# title\n\nbefore\n\n{START}\n{render_reference()}{END}\n\nafter\n"
    )
    assert readme_copy(readme.read_text()) == render_reference()
    assert main(["--write", str(tmp_path / "missing.md")]) == 2


def _validation_section() -> str:
    text = CONFIGURATION.read_text(encoding="utf-8")
    start = text.index("\n## Validation\n")
    return text[start : text.index("\n## ", start + 1)]


def test_the_example_error_is_what_the_program_prints(tmp_path: Path) -> None:
    """The Validation section's first YAML block is a stack file; the plain block after it,
    what planning it prints: the test writes the one and compares the other, exactly."""
    section = _validation_section()
    stack_file = re.search(r"\n```yaml\n(.*?)```\n", section, re.DOTALL)
    assert stack_file is not None
    printed = re.search(r"\n```\n(error: .*?)```\n", section[stack_file.end() :], re.DOTALL)
    assert printed is not None
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_file[1])
    done = subprocess.run(
        [sys.executable, "-m", "stacks", "plan", "dev", "--project-dir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == printed[1], "paste the program's stderr into docs/configuration.md"
    assert "(3 problems)" in printed[1]  # short, as the page promises
    # The allowed-keys list it prints is every top-level key.
    allowed = re.search(r"allowed keys: ([^\n]*)", printed[1])
    assert allowed is not None
    assert allowed[1].split(", ") == list(StackConfig.model_fields)
