"""Recorded cluster objects behind a read-only API server, so the real `chainsaw` binary runs
a health check offline as the check Job runs it.

Chainsaw v0.2.15 cannot evaluate a resource assert without an API server: `chainsaw test
--no-cluster` leaves the client unset and every `assert`/`error` with a `kind` fails with
"cluster client not set" (`pkg/engine/operations/assert/operation.go` and
`.../error/operation.go`, `Exec`), and `chainsaw assert --resource FILE`
(`pkg/commands/assert/command.go`) answers every Get with the file's first object and every
List with all of them, with no `error` operation and no steps. So the binary gets a cluster:
this module serves what a real API server would for the reads Chainsaw makes (discovery,
Get and List of each kind, by namespace and label selector; 404 `NotFound` for a missing
object), from `objects`, and refuses every write with 403, as the check's read-only RBAC
does. Everything Chainsaw decides (steps, `assert`/`error`, JMESPath, matching) is the binary's.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from components.platform.chainsaw.reads import plural

# Kinds the API server serves cluster-scoped (Kubernetes' built-in kinds; the CRDs' own
# `spec.scope: Cluster` for ClusterPolicy, ClusterTrainingRuntime, NodeFeatureRule, ...).
CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "Node",
        "CustomResourceDefinition",
        "ClusterPolicy",
        "ClusterTrainingRuntime",
        "ClusterRole",
        "ClusterRoleBinding",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "RuntimeClass",
        "NodeFeatureRule",
        "ClusterIssuer",
        "PriorityClass",
        "StorageClass",
        "CSIDriver",
        "APIService",
        "DeviceClass",
        "ResourceSlice",
        "IngressClass",
        "GatewayClass",
    }
)


@dataclass(frozen=True)
class Kind:
    """One served kind: its group version, kind, resource name and scope."""

    group_version: str
    kind: str

    @property
    def resource(self) -> str:
        return plural(self.kind)

    @property
    def namespaced(self) -> bool:
        return self.kind not in CLUSTER_SCOPED


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


class RecordedApi:
    """What the API server answers for `objects` and the extra `kinds` it serves."""

    def __init__(self, objects: Sequence[Mapping[str, Any]], kinds: Iterable[Kind] = ()) -> None:
        self.objects = list(objects)
        served = {Kind(o["apiVersion"], o["kind"]) for o in self.objects} | set(kinds)
        self.kinds = sorted(served, key=lambda k: (k.group_version, k.kind))

    def _versions(self) -> dict[str, list[Kind]]:
        found: dict[str, list[Kind]] = {}
        for kind in self.kinds:
            found.setdefault(kind.group_version, []).append(kind)
        return found

    def discovery(self, path: list[str]) -> dict[str, Any] | None:
        """`/api`, `/apis` and each group version's resource list (legacy discovery)."""
        versions = self._versions()
        if path == ["api"]:
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if path == ["apis"]:
            groups = sorted({gv for gv in versions if "/" in gv})
            return {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [
                    {
                        "name": gv.split("/")[0],
                        "versions": [{"groupVersion": gv, "version": gv.split("/")[1]}],
                        "preferredVersion": {"groupVersion": gv, "version": gv.split("/")[1]},
                    }
                    for gv in groups
                ],
            }
        gv = "/".join(path[1:])
        if path[:1] in (["api"], ["apis"]) and gv in versions and len(path) in (2, 3):
            resources = [
                {
                    "name": k.resource,
                    "singularName": k.kind.lower(),
                    "namespaced": k.namespaced,
                    "kind": k.kind,
                    "verbs": ["get", "list"],
                }
                for k in versions[gv]
            ]
            return {"kind": "APIResourceList", "groupVersion": gv, "resources": resources}
        return None

    def read(self, path: list[str], query: Mapping[str, list[str]]) -> tuple[int, Any]:
        """A Get or a List, as `(status code, body)`."""
        prefix = 2 if path[:1] == ["api"] else 3
        gv, rest = "/".join(path[1:prefix]), path[prefix:]
        namespace = ""
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        matches = [
            k for k in self.kinds if k.group_version == gv and rest and k.resource == rest[0]
        ]
        if not matches or len(rest) > 2:
            return 404, _status(404, "NotFound", f"the server could not find {'/'.join(path)}")
        kind = matches[0]
        same = [
            o for o in self.objects
            if (o["apiVersion"], o["kind"]) == (kind.group_version, kind.kind)
            and (not namespace or (o.get("metadata") or {}).get("namespace", "") == namespace)
        ]  # fmt: skip
        if len(rest) == 2:
            named = [o for o in same if o["metadata"]["name"] == rest[1]]
            if not named:
                message = f'{kind.resource} "{rest[1]}" not found'
                return 404, _status(404, "NotFound", message)
            return 200, named[0]
        try:
            wanted = _selector(query.get("labelSelector", [""])[0])
        except ValueError as err:
            return 400, _status(400, "BadRequest", str(err))
        items = [o for o in same if _labelled(o, wanted)]
        return 200, {
            "apiVersion": kind.group_version,
            "kind": f"{kind.kind}List",
            "metadata": {"resourceVersion": "1"},
            "items": items,
        }


def _selector(text: str) -> dict[str, str]:
    """An equality label selector (`a=b,c=d`, what `client.MatchingLabels` sends)."""
    pairs = [part.split("=", 1) for part in text.split(",") if part]
    if any(len(p) != 2 or p[0].endswith(("!", "=")) for p in pairs):
        raise ValueError(f"label selector {text!r}: only equality is served")
    return {k: v.lstrip("=") for k, v in pairs}


def _labelled(obj: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    have = (obj.get("metadata") or {}).get("labels") or {}
    return all(have.get(k) == v for k, v in labels.items())


def _handler(api: RecordedApi, seen: list[str]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def _send(self, code: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            seen.append(f"GET {url.path}{'?' + url.query if url.query else ''}")
            path = [p for p in url.path.split("/") if p]
            found = api.discovery(path)
            if found is not None:
                self._send(200, found)
            elif path[:1] in (["api"], ["apis"]):
                self._send(*api.read(path, parse_qs(url.query)))
            else:
                self._send(404, _status(404, "NotFound", f"no {url.path}"))

        def _refuse(self) -> None:
            seen.append(f"{self.command} {self.path}")
            self._send(403, _status(403, "Forbidden", "read-only: the check's RBAC"))

        do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

    return Handler


@contextmanager
def serving(api: RecordedApi, folder: Path) -> Iterator[tuple[Path, list[str]]]:
    """A kubeconfig for `api` served on localhost, and the requests it gets, while open."""
    seen: list[str] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api, seen))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    kubeconfig = folder / "kubeconfig.json"
    port = server.server_address[1]
    kubeconfig.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "recorded", "cluster": {"server": f"http://127.0.0.1:{port}"}}
                ],
                "users": [{"name": "reader", "user": {}}],
                "contexts": [
                    {"name": "recorded", "context": {"cluster": "recorded", "user": "reader"}}
                ],
                "current-context": "recorded",
            }
        ),
        encoding="utf-8",
    )
    try:
        yield kubeconfig, seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
