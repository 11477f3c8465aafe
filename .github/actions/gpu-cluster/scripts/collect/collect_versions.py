"""versions.txt: every pinned version against what this host and cluster run.

Three columns of expectation and one of fact: `pins.py` (components/pins.py, through
collect_pins.py), `plan` (the versions the action's offline plan used: its inputs may
override a pin, e.g. toolkit-version), and `installed`, asked of the thing itself: the
tools' `version` commands, the tools step's stamps (STATEDIR/TOOL, "<identity> <sha256>":
components/host/scripts/tools.sh; nvkind's identity names its commit), dpkg for the
toolkit, the loaded driver, the API server, Helm's releases, Pulumi, and the image each
check pod runs (its imageID's digest). A row whose installed value is not the expected
one says DIFFERS; SUMMARY.md lists those rows.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from collect_run import Runner, parsed

SEMVER = re.compile(r"\d+\.\d+\.\d+")
TOOLS = ("kind", "kubectl", "helm", "go", "nvkind")


def _semver(text: str) -> str:
    match = SEMVER.search(text)
    return match.group(0) if match else ""


class Versions:
    def __init__(self, runner: Runner, pins: dict[str, Any], plan: dict[str, Any]) -> None:
        self.runner = runner
        self.pins = {k: str(v) for k, v in pins.items()}
        self.plan = plan
        self.rows: list[tuple[str, str, str, str, str]] = []

    def ask(self, name: str, argv: list[str]) -> str:
        done = self.runner.run(f"version: {name}", argv)
        return done.text().strip() if done.ok else ""

    def row(self, what: str, pinned: str, planned: str, installed: str, same: bool) -> None:
        expected = planned or pinned
        verdict = "?" if not installed or not expected else "ok" if same else "DIFFERS"
        self.rows.append((what, pinned or "-", planned or "-", installed or "?", verdict))

    def tools(self, binaries: dict[str, str], statedir: Path | None) -> None:
        said = {
            "kind": _semver(self.ask("kind", [binaries["kind"], "version"])),
            "kubectl": _semver(self.ask("kubectl", [binaries["kubectl"], "version", "--client"])),
            "helm": _semver(self.ask("helm", [binaries["helm"], "version", "--short"])),
        }
        for tool in TOOLS:
            stamp = statedir / tool if statedir else None
            identity = ""
            if stamp is not None and stamp.is_file():
                identity = stamp.read_text(encoding="utf-8", errors="replace").split(" ")[0]
            installed = said.get(tool, "")
            if tool == "nvkind" and identity.startswith("go:"):
                installed = identity.split(":")[1]
            if tool == "go":
                continue  # only nvkind's build uses it; nvkind's row names the commit
            planned = str(self.plan.get(tool, ""))
            expected = planned or self.pins.get(tool, "")
            same = bool(installed) and expected.startswith(installed[:7])
            self.row(tool, self.pins.get(tool, ""), planned, installed, same)

    def host(self, pulumi: str) -> None:
        status = self.ask(
            "toolkit", ["dpkg-query", "-W", "-f=${Status}\t${Version}", "nvidia-container-toolkit"]
        )
        toolkit = status.split("\t")[-1] if "\t" in status else ""
        planned = str(self.plan.get("toolkit", ""))
        self.row(
            "toolkit",
            self.pins.get("toolkit", ""),
            planned,
            toolkit,
            toolkit == (planned or self.pins.get("toolkit")),
        )
        driver = self.ask(
            "driver", ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
        ).splitlines()
        loaded = driver[0].strip() if driver else ""
        branch = self.pins.get("driver", "")
        package = str(self.plan.get("driverPackage", ""))
        major = re.search(r"\d{3}", package or branch)
        same = major is not None and loaded.split(".")[0] == major.group(0)
        self.row("driver", branch, package, loaded, same)
        docker = self.ask("docker", ["docker", "version", "--format", "{{.Server.Version}}"])
        self.row("docker", "", "", docker, same=False)  # nothing to expect: always "?"
        if pulumi:
            installed = _semver(self.ask("pulumi", [pulumi, "version"]))
            planned = str(self.plan.get("pulumi", ""))
            self.row("pulumi", "", planned, installed, installed == planned)

    def cluster(self, kubectl: str, helm: str, images: dict[str, str]) -> None:
        answer = parsed(self.runner.run("version: cluster", [kubectl, "version", "-o", "json"]))
        server = ((answer or {}).get("serverVersion") or {}).get("gitVersion", "")
        planned = str(self.plan.get("kubernetes", ""))
        self.row("kubernetes", "", planned, str(server), str(server).startswith(planned))
        releases = parsed(
            self.runner.run("version: helm releases", [helm, "list", "-A", "-o", "json"])
        )
        deployed = {
            str(r.get("name")): f"{r.get('chart')} ({r.get('status')})"
            for r in releases or []
            if isinstance(r, dict)
        }
        for release, chart in sorted((self.plan.get("charts") or {}).items()):
            ref, _, version = str(chart).partition(" ")
            # `helm list`'s chart is the chart's own name and version (helm/helm
            # pkg/cmd/list.go, formatChartname); an OCI chart's reference ends in that name
            # (pkg/pusher/ocipusher.go pushes to REGISTRY/NAME:VERSION).
            name = ref.rsplit("/", 1)[-1]
            pinned = self.pins.get(f"chart {name}", "")
            found = deployed.get(release, "")
            self.row(
                f"release {release}",
                pinned,
                chart,
                found,
                found.startswith(f"{name}-{version} (deployed"),
            )
        for key in ("chainsaw image", "cuda image", "torch image"):
            pinned = self.pins.get(key, "")
            ref, _, digest = pinned.partition("@")
            ran = next((i for image, i in images.items() if image.split("@")[0] == ref), "")
            if ran:
                self.row(key, pinned, "", ran, ran.endswith(digest))

    def table(self) -> str:
        head = ("what", "pins.py", "plan", "installed", "")
        rows = [head, *self.rows]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        return "".join(
            "  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + f"  {r[4]}\n"
            for r in rows
        )

    def differs(self) -> list[str]:
        return [
            f"{r[0]} (expected {r[2] if r[2] != '-' else r[1]}, installed {r[3]})"
            for r in self.rows
            if r[4] == "DIFFERS"
        ]
