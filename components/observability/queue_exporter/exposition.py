"""The exporter's metrics in Prometheus's text format (version 0.0.4), and /metrics.

Format rules from prometheus/docs `content/docs/instrumenting/exposition_formats.md`: one
`# HELP` and `# TYPE` per family; a label value escapes `\\`, `"` and line feed; a
histogram is cumulative `_bucket{le=...}` series ending in `le="+Inf"`, with `_sum` and
`_count`. Every value a label carries is escaped, whatever GitHub sent.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
Labels = tuple[tuple[str, str], ...]


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(labels: Labels, extra: str = "") -> str:
    parts = [f'{k}="{escape(v)}"' for k, v in labels]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    return repr(float(value)) if value != int(value) else str(int(value))


@dataclass
class Family:
    name: str
    kind: str
    help: str
    buckets: tuple[float, ...] = ()
    values: dict[Labels, float] = field(default_factory=dict)
    counts: dict[Labels, list[int]] = field(default_factory=dict)
    sums: dict[Labels, float] = field(default_factory=dict)

    def set(self, labels: Labels, value: float) -> None:
        self.values[labels] = value

    def inc(self, labels: Labels = (), by: float = 1.0) -> None:
        self.values[labels] = self.values.get(labels, 0.0) + by

    def observe(self, labels: Labels, value: float) -> None:
        counts = self.counts.setdefault(labels, [0] * (len(self.buckets) + 1))
        for i, bound in enumerate((*self.buckets, math.inf)):
            if value <= bound:
                counts[i] += 1
        self.sums[labels] = self.sums.get(labels, 0.0) + value

    def lines(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]
        if self.kind != "histogram":
            out += [f"{self.name}{_labels(k)} {number(v)}" for k, v in sorted(self.values.items())]
            return out
        for key, counts in sorted(self.counts.items()):
            for bound, count in zip((*self.buckets, math.inf), counts, strict=True):
                le = f'le="{number(bound)}"'
                out.append(f"{self.name}_bucket{_labels(key, le)} {count}")
            out.append(f"{self.name}_sum{_labels(key)} {number(self.sums[key])}")
            out.append(f"{self.name}_count{_labels(key)} {counts[-1]}")
        return out


class Registry:
    """The families, rendered under one lock so a scrape never sees half a poll."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.families: dict[str, Family] = {}

    def family(
        self, name: str, kind: str, help_text: str, buckets: tuple[float, ...] = ()
    ) -> Family:
        made = self.families.setdefault(name, Family(name, kind, help_text, buckets))
        return made

    def render(self) -> bytes:
        with self.lock:
            lines = [line for f in self.families.values() for line in f.lines()]
        return ("\n".join(lines) + "\n").encode()


def serve(render: Callable[[], bytes], port: int, host: str = "") -> ThreadingHTTPServer:
    """Serve `render()` at /metrics on `port` (0: any free one) in a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404)
                return
            body = render()
            self.send_response(200)
            self.send_header("Content-Type", CONTENT_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # one line per scrape would drown the exporter's own messages

    server = ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
