"""Cloud-init user data for the GPU VMs, rendered and checked before it ships.

cloud-init only runs user data whose first line is `#!` (a script) or `#cloud-config`.
The Kubeflow proposal's bootstrap.sh had its shebang on line 18 under a licence header,
so it never ran and nobody noticed: `check_user_data` makes that a plan-time error.
Software is installed by the host layer's steps (each its own resource, with triggers);
user data only prepares the machine and records which stack owns it.
"""

from __future__ import annotations

import base64
import json
import re

import yaml

from core import yaml_text
from core.errors import GpuCiError

CLOUD_CONFIG_HEADER = "#cloud-config"


class UserDataError(GpuCiError):
    """User data cloud-init would not run."""


def check_user_data(text: str, *, source: str) -> None:
    """Fail unless cloud-init would run `text`; `source` names it in the message."""
    first = text.split("\n", 1)[0].rstrip("\r")
    if first.startswith("#!"):
        return
    if first.strip() == CLOUD_CONFIG_HEADER:
        try:
            body = yaml_text.load(text)
        except yaml.YAMLError as err:
            raise UserDataError(f"{source}: #cloud-config is not valid YAML: {err}") from None
        if not isinstance(body, dict):
            raise UserDataError(f"{source}: #cloud-config must be a YAML mapping")
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#!") or line.strip() == CLOUD_CONFIG_HEADER:
            raise UserDataError(
                f"{source}: cloud-init would ignore this user data: its {line.strip()!r} is "
                f"on line {number}, and cloud-init only looks at line 1; move it to the top"
            )
    raise UserDataError(
        f"{source}: cloud-init would ignore this user data: line 1 must be '#!' (a "
        f"script) or '{CLOUD_CONFIG_HEADER}', not {first[:40]!r}"
    )


_PLAIN = re.compile(r"[A-Za-z0-9_.-]+")
"""What user data embeds as written: the names the Pulumi CLI takes
(stacks/offline/stack_file/read.py), which YAML and a shell read as plain words."""
_SHELL_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in "$`!"}


def _quoted(text: str) -> str:
    """`text` as written if plain, else as a JSON string: one line of ASCII (line breaks,
    U+2028 and the like escaped) with `$`, backquote and `!` escaped too, so nothing in it
    ends the comment it is in or is YAML or shell syntax, even pasted into a shell's double
    quotes. The CLI refuses other project and stack names unless its validation is turned
    off (PULUMI_DISABLE_VALIDATION: pulumi/pulumi sdk/go/common/tokens/stack_name.go
    ParseStackName, commit 78757ef6)."""
    if _PLAIN.fullmatch(text):
        return text
    return json.dumps(text).translate(_SHELL_ESCAPES)


def render_vm_user_data(*, project: str, stack: str, role: str, index: int) -> str:
    """The `#cloud-config` for one GPU VM: grow the root disk, label the machine."""
    identity = {"project": project, "stack": stack, "role": role, "index": index}
    body = {
        # OCI boot volumes larger than the image (512 GB by default) need the root
        # partition and filesystem grown before the host layer installs anything.
        "growpart": {"mode": "auto", "devices": ["/"]},
        "resize_rootfs": True,
        "write_files": [
            {
                "path": "/etc/gpu-ci/instance.json",
                "permissions": "0644",
                "owner": "root:root",
                "content": json.dumps(identity, sort_keys=True) + "\n",
            }
        ],
    }
    comment = (
        f"# gpu-ci {_quoted(project)}/{_quoted(stack)}: {_quoted(role)} {index}. Host "
        "software comes from the host layer.\n"
    )
    text = f"{CLOUD_CONFIG_HEADER}\n{comment}" + yaml_text.dump(body, sort_keys=True)
    check_user_data(text, source=f"user data of {role} {index}")
    return text


def encode_user_data(text: str) -> str:
    """OCI's `user_data` metadata key takes base64."""
    return base64.b64encode(text.encode()).decode()
