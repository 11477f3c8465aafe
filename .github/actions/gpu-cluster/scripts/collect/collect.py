"""Collect one diagnostics bundle of a GPU cluster and its host: `collect.sh` runs it for
the action's `command: collect`; on a self-managed host it runs on its own (stdlib only;
docs/ci-integration.md#diagnostics-on-a-self-managed-host).

    collect.py --out DIR --cluster NAME [--kubeconfig FILE] [--work ACTION_FOLDER] ...

writes DIR (the bundle: SUMMARY.md first) and DIR.tar.gz, and exits 0 unless it cannot
write them. Each source is bounded in time (collect_run); a source that fails is a line of
SUMMARY.md and collect.log, never the end of the collect. The modules beside it:

    collect_run.py      one bounded source at a time, its Record
    collect_redact.py   what is secret, and its replacement in every line shipped
    collect_host.py     GPU, kernel Xid lines, runtime and CDI configuration, kind's logs
    collect_cluster.py  namespaces, nodes, events, pods, the failed check Jobs' logs
    collect_versions.py components/pins.py (collect_pins.py) against what is installed
    collect_bundle.py   redaction into the bundle, its size bound, the tarball
    collect_summary.py  SUMMARY.md and collect.log
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from collect_bundle import bound, redact_into, tarball
from collect_cluster import Cluster, Failure, output_namespaces, plan_namespaces
from collect_host import Host, action_files
from collect_redact import Redactor, secret_values
from collect_run import FAILED, SKIPPED, Runner, parsed, parsed_file
from collect_summary import Report, log, summary
from collect_versions import Versions

DEFAULT_MAX_MB = 100
DEFAULT_TIMEOUT_S = 60
BUDGET_FACTOR = 15
"""The collect starts no source after 15 source timeouts (15 min at the default)."""


def arguments(argv: list[str]) -> argparse.Namespace:
    about = " ".join(__doc__.split("\n\n")[0].split())  # the docstring's first paragraph
    cli = argparse.ArgumentParser(prog="collect.py", description=about)
    cli.add_argument("--out", required=True, help="the bundle folder (DIR.tar.gz beside it)")
    cli.add_argument("--cluster", required=True, help="the kind cluster's name")
    cli.add_argument("--kubeconfig", default="", help="else `kind get kubeconfig`")
    cli.add_argument("--kind", default="kind")
    cli.add_argument("--kubectl", default="kubectl")
    cli.add_argument("--helm", default="helm")
    cli.add_argument(
        "--kind-as-root", action="store_true", help="kind as root (through sudo -n with --sudo)"
    )
    cli.add_argument("--sudo", action="store_true", help="root's sources through sudo -n")
    cli.add_argument("--root", default="/", help="prefix of the host files read")
    cli.add_argument("--statedir", default="", help="the tools step's STATEDIR")
    cli.add_argument("--work", default="", help="the action's folder for this cluster")
    cli.add_argument("--pulumi", default="", help="the action's Pulumi CLI (secret outputs)")
    cli.add_argument("--project", default="")
    cli.add_argument("--stack", default="")
    cli.add_argument("--python", default="", help="the program's Python, to read pins.py")
    cli.add_argument("--pins", default="", help="collect_pins.py's JSON, run elsewhere")
    cli.add_argument("--redact-file", action="append", default=[], help="a secret file")
    cli.add_argument("--max-mb", type=int, default=DEFAULT_MAX_MB)
    cli.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="per source, s")
    cli.add_argument("--result", default="", help="KEY=VALUE lines for collect.sh")
    return cli.parse_args(argv)


def say(message: str) -> None:
    """A log line; collect.sh prints it with workflow commands off (it names pods)."""
    print(f"gpu-ci step collect: {message}", file=sys.stderr, flush=True)


def fresh(out: Path) -> Path:
    """An empty bundle folder (a previous collect's is replaced) and a private staging
    folder beside it."""
    if out.is_symlink():
        raise OSError(f"{out} is a symbolic link; the bundle folder is the collect's own")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    return Path(tempfile.mkdtemp(prefix=".gpu-ci-collect-", dir=out.parent))


def stack_outputs(runner: Runner, args: argparse.Namespace, redactor: Redactor) -> Any:
    """The stack's outputs without secrets; each secret one's value goes to the redactor."""
    if not (args.pulumi and args.stack and Path(args.pulumi).is_file()):
        runner.note("stack outputs", SKIPPED, "", "no Pulumi state of this cluster here")
        return None
    pulumi = [args.pulumi, "--non-interactive", "--cwd", args.project or "."]
    base = [*pulumi, "stack", "output", "--stack", args.stack, "--json"]
    shown = parsed(runner.run("stack outputs (secrets)", [*base, "--show-secrets"]))
    public = parsed(runner.run("stack outputs", base))
    redactor.add(secret_values(public, shown))
    if isinstance(shown, dict) and isinstance(shown.get("kubeconfig"), str):
        redactor.add([shown["kubeconfig"]])
    return public


def kubeconfig(runner: Runner, args: argparse.Namespace, redactor: Redactor) -> str:
    """The kubeconfig kubectl uses: the given one, else kind's for the cluster (0600, in
    the staging folder); "" when there is none."""
    given = Path(args.kubeconfig) if args.kubeconfig else None
    if given is not None and given.is_file():
        redactor.add([given.read_text(encoding="utf-8", errors="replace")])
        return str(given)
    done = runner.run(
        "kind get kubeconfig",
        [args.kind, "get", "kubeconfig", "--name", args.cluster],
        root=args.kind_as_root,
    )
    if not done.ok or done.stdout is None or "clusters:" not in done.text():
        return ""
    done.stdout.chmod(0o600)
    redactor.add([done.text()])
    return str(done.stdout)


def pins_of(runner: Runner, args: argparse.Namespace) -> dict[str, Any]:
    if args.pins:
        found = parsed_file(Path(args.pins))
    elif args.python:
        script = str(Path(__file__).with_name("collect_pins.py"))
        found = parsed(runner.run("pins.py", [args.python, script]))
    else:
        found = None
        runner.note("pins.py", SKIPPED, "", "neither --pins nor --python was given")
    return found if isinstance(found, dict) else {}


def phase(runner: Runner, name: str, work: Any, *values: Any) -> Any:
    """One part of the collect; an error in it is a failed source, and the rest goes on."""
    try:
        return work(*values)
    except Exception as error:  # a collector bug must not lose the bundle
        runner.note(name, FAILED, "", f"{type(error).__name__}: {error}")
        return None


def collect(args: argparse.Namespace, out: Path, staging: Path) -> Report:
    redactor = Redactor()
    for name in args.redact_file:
        path = Path(name)
        if path.is_file():
            redactor.add([path.read_text(encoding="utf-8", errors="replace")])
    limit = max(args.timeout, 1)
    runner = Runner(staging, limit, limit * BUDGET_FACTOR, args.sudo)
    report = Report(args.cluster, limit=args.max_mb << 20)
    work = Path(args.work) if args.work else None
    outputs = phase(runner, "stack outputs", stack_outputs, runner, args, redactor)
    config = phase(runner, "kubeconfig", kubeconfig, runner, args, redactor) or ""
    runner.env["KUBECONFIG"] = config
    if work is not None:
        report.failures += phase(runner, "action files", action_files, runner, work) or []
    host = Host(runner, Path(args.root))
    report.failures += (
        phase(runner, "host", host.collect, args.kind, args.cluster, args.kind_as_root) or []
    )
    images: dict[str, str] = {}
    if config:
        known = {
            **plan_namespaces(parsed_file(work / "plan.json") if work else None),
            **output_namespaces(outputs),
        }
        found = phase(runner, "cluster", Cluster(runner, args.kubectl).collect, known)
        if found is not None:
            report.failures += found.failures
            images = found.images
    else:
        runner.note("cluster", SKIPPED, "", "no kubeconfig: neither given nor from kind")
    planned = parsed_file(work / "versions.json") if work else None
    versions = Versions(runner, pins_of(runner, args), planned if isinstance(planned, dict) else {})
    binaries = {"kind": args.kind, "kubectl": args.kubectl, "helm": args.helm}
    statedir = Path(args.root) / args.statedir.lstrip("/") if args.statedir else None
    phase(runner, "versions", versions.tools, binaries, statedir)
    phase(runner, "versions", versions.host, args.pulumi)
    if config:
        phase(runner, "versions", versions.cluster, args.kubectl, args.helm, images)
    (runner.ship / "versions.txt").write_text(versions.table(), encoding="utf-8")
    report.differs = versions.differs()
    report.failures = [Failure(f.kind, redactor.text(f.text), f.path) for f in report.failures]
    report.left_out = redact_into(runner.ship, out, redactor)
    report.records = runner.records
    reserve = len(summary(report).encode()) + len(log(report.records, [], []).encode()) + 8192
    report.cuts = bound(out, report.limit, reserve)
    report.redacted = dict(redactor.counts)
    (out / "SUMMARY.md").write_text(redactor.text(summary(report)), encoding="utf-8")
    text = log(report.records, report.left_out, report.cuts)
    (out / "collect.log").write_text(redactor.text(text), encoding="utf-8")
    return report


SUDO_RM_S = 60
"""How long `sudo -n rm` of the staging folder may take before it is left for a person."""


def remove(staging: Path, sudo: bool) -> None:
    """The raw staging folder (root's files from kind in it: through sudo if need be)."""
    shutil.rmtree(staging, ignore_errors=True)
    if staging.exists() and sudo and os.geteuid() != 0:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):  # then named below
            subprocess.run(
                ["sudo", "-n", "rm", "-rf", "--", str(staging)], check=False, timeout=SUDO_RM_S
            )
    if staging.exists():
        say(f"could not remove the raw staging folder {staging}; remove it by hand")


def main(argv: list[str]) -> int:
    args = arguments(argv)
    out = Path(args.out).absolute()
    target = out.with_name(out.name + ".tar.gz")
    try:
        staging = fresh(out)
    except OSError as error:
        say(f"cannot write the bundle at {out}: {error}")
        return 1
    try:
        report = collect(args, out, staging)
        tarball(out, target)
    except OSError as error:
        say(f"cannot write the bundle at {out}: {error}")
        return 1
    finally:
        remove(staging, args.sudo or args.kind_as_root)
    first = report.first().replace("\n", " ").replace("\r", " ")
    say(f"bundle {target} ({target.stat().st_size} bytes): {first}")
    if args.result:
        result = {"bundle": str(target), "bundle-dir": str(out), "first-failure": first}
        lines = "".join(f"{k}={v}\n" for k, v in result.items())
        Path(args.result).write_text(lines, encoding="utf-8")  # whatever the host's locale
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
