"""Every rendered object checked by a real Kubernetes validator, offline.

kubectl-validate (sigs.k8s.io/kubectl-validate) validates objects as the API server would,
with the OpenAPI schemas of a Kubernetes version built in and CRDs read from folders
(`--local-crds`), no cluster needed. It is told the cluster's version, and given the CRDs
the stack's own charts install (rendered with `--include-crds`) beside any given folder
(e.g. the upstream CRDs the tests keep). Each object goes to its own file, so each result
names its object. It would also consult a cluster from the user's kubeconfig: pointed at a
file that does not exist, it cannot.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.read_json import load as load_json
from core.read_limits import VALIDATOR_RESULTS
from stacks.offline.charts.release import ChartCheckError, run_tool

VALIDATE_TIMEOUT_S = 600


def object_label(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{obj.get('kind')} {where}{meta.get('name')}"


def validate(
    validator: Path,
    objects: Sequence[tuple[str, dict[str, Any]]],
    kube_version: str,
    crd_folders: Sequence[Path] = (),
) -> list[str]:
    """One line per invalid object of `objects` ((where, object) pairs), naming it and why."""
    if not objects:
        return []
    version = ".".join(kube_version.removeprefix("v").split(".")[:2])
    with tempfile.TemporaryDirectory(prefix="gpu-ci-validate-") as scratch:
        folder, crds = Path(scratch) / "objects", Path(scratch) / "crds"
        folder.mkdir()
        crds.mkdir()
        named: dict[str, str] = {}
        for index, (where, obj) in enumerate(objects):
            # JSON: one document a file, ASCII only (json.dumps escapes the rest)
            file, data = folder / f"{index:05d}.json", json.dumps(obj).encode()
            file.write_bytes(data)
            named[str(file)] = f"{where}: {object_label(obj)}"
            if obj.get("kind") == "CustomResourceDefinition":
                (crds / file.name).write_bytes(data)
        args = [str(validator), str(folder), "--version", version, "--output", "json"]
        for crd_folder in (crds, *crd_folders):
            args += ["--local-crds", str(crd_folder)]
        no_cluster = {"KUBECONFIG": str(Path(scratch) / "no-kubeconfig")}
        done = run_tool(args, what="kubectl-validate", timeout=VALIDATE_TIMEOUT_S, env=no_cluster)
        try:
            results = load_json(
                done.stdout, name="kubectl-validate output", limits=VALIDATOR_RESULTS
            )
        except Exception:
            raise ChartCheckError(
                f"kubectl-validate failed (exit {done.returncode}): "
                + " ".join((done.stderr or done.stdout).split())[:2000]
            ) from None
    problems = []
    for file, statuses in sorted(results.items()):
        for status in statuses:
            if status.get("status") != "Success":
                problems.append(f"{named.get(file, file)}: {_why(status)}")
    return problems


def _why(status: dict[str, Any]) -> str:
    causes = (status.get("details") or {}).get("causes") or []
    if causes:
        return "; ".join(
            ": ".join(filter(None, (c.get("field"), c.get("message")))) for c in causes
        )
    return str(status.get("message") or status)
