"""`no-plaintext-secrets-in-pod-env`: no container env var holds a credential as a value.

A literal value is stored in the resource's state and shown by `kubectl describe`; a
credential must come from `valueFrom.secretKeyRef`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policy.pod_specs import containers
from policy.rule import Resource, known

SECRET_WORDS = {"TOKEN", "KEY", "APIKEY", "PASSWORD", "PASSWD", "SECRET", "CREDENTIALS"}
NOT_SECRET_SUFFIXES = {"FILE", "PATH", "DIR", "NAME", "ID", "FINGERPRINT"}
CREDENTIAL_VALUE = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}"
)


def _secret_name(name: str) -> bool:
    words = [w for w in re.split(r"[^A-Z0-9]+", name.upper()) if w]
    return bool(words) and words[-1] not in NOT_SECRET_SUFFIXES and bool(SECRET_WORDS & set(words))


def check_env_secrets(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if not resource.type.startswith("kubernetes:"):
        return []
    found = []
    for path, container in containers(resource.props):
        for index, env in enumerate(container.get("env") or []):
            if not isinstance(env, Mapping) or "value" not in env:
                continue
            name, value = str(env.get("name") or f"[{index}]"), env["value"]  # [i]: unnamed
            if not isinstance(value, str) or not value or not known(value):
                continue
            if _secret_name(name) or CREDENTIAL_VALUE.search(value):
                found.append(
                    f"{resource.where()}: {path} env {name} holds a credential as a plain "
                    "value; use valueFrom.secretKeyRef"
                )
    return found
