"""The action's shell steps end to end in the stub sandbox: up, outputs, destroy, failures."""

from __future__ import annotations

import json
import re
import stat

import pytest
import yaml

from .action_sandbox import ARCHIVE, KUBECONFIG, SDK_URL, VERSION, ActionSandbox, sha256

SECRET = "S3CRET-KEY-DATA"


def pulumi_calls(calls: list[str]) -> list[str]:
    """The Pulumi CLI calls, without the path and the flags every call has."""
    found = []
    for call in calls:
        name, _, rest = call.partition(" ")
        if name == "pulumi":
            found.append(re.sub(r"^--non-interactive --cwd \S+ ", "", rest))
    return found


def everything_printed(runner: ActionSandbox, *runs: object) -> str:
    texts = [getattr(r, "stdout", "") + getattr(r, "stderr", "") for r in runs]
    for name in ("output", "env", "summary"):
        texts.append(runner.github_file(name))
    texts.append((runner.work / "outputs.json").read_text())
    return "\n".join(texts)


def test_up_makes_the_cluster_and_exports_kubeconfig_and_facts(runner: ActionSandbox) -> None:
    runs = runner.up_to_install()
    up = runner.run("up")
    assert up.returncode == 0, up.stderr
    calls = pulumi_calls([c for run in (*runs, up) for c in run.calls])
    assert calls == [
        "version",
        "plugin install resource command 1.2.1 --exact",
        "plugin install resource kubernetes 4.34.2 --exact",
        f"login file://{runner.work}/state",
        "stack select --create --secrets-provider passphrase gpu-cluster-kind",
        "up --stack gpu-cluster-kind --yes --skip-preview --suppress-progress "
        "--message gpu-cluster action: full",
        "stack output --stack gpu-cluster-kind --json --show-secrets",
    ]
    # No account and no secrets: a file backend in the job's folder, a generated passphrase.
    assert runner.sandbox.read("pulumi/backend") == f"file://{runner.work}/state"
    passphrase = runner.work / "passphrase"
    assert stat.S_IMODE(passphrase.stat().st_mode) == 0o600
    assert f"::add-mask::{passphrase.read_text()}" in up.stdout
    env = runner.sandbox.read("pulumi/env-up")
    assert f"PULUMI_HOME={runner.work}/pulumi-home" in env
    assert f"PATH0={runner.work}/pulumi" in env  # the pinned CLI, its language host beside it

    outputs = runner.step_outputs()
    kubeconfig = runner.work / "kubeconfig"
    assert outputs["kubeconfig"] == str(kubeconfig)
    assert kubeconfig.read_text() == KUBECONFIG
    assert stat.S_IMODE(kubeconfig.stat().st_mode) == 0o600
    assert runner.github_file("env") == f"KUBECONFIG={kubeconfig}\n"
    assert outputs["cluster-name"] == "kind"
    assert outputs["gpu-count"] == "1"
    assert outputs["gpus"] == "NVIDIA A10"
    assert outputs["driver-version"] == "570.172.08"
    assert outputs["kubernetes-version"] == "v1.35.0"
    assert json.loads(outputs["facts"])["K8s.server.version"] == "v1.35.0"
    versions = json.loads(outputs["versions"])
    assert versions["pulumi"] == VERSION and versions["toolkit"] == "1.17.8-1"
    assert "gpu-operator v26.7.0" in versions["charts"]["gpu-operator"]
    assert "### gpu-cluster: nvkind cluster ready" in runner.github_file("summary")
    assert SECRET not in everything_printed(runner, *runs, up)


def test_the_cli_is_verified_against_the_release_checksums(runner: ActionSandbox) -> None:
    runs = runner.up_to_install()
    curl = [c.split(" ")[-1] for c in runs[-1].calls if c.startswith("curl")]
    assert curl == [f"{SDK_URL}/pulumi-{VERSION}-checksums.txt", f"{SDK_URL}/{ARCHIVE}"]
    assert "SHA-256 verified" in runs[-1].stderr
    assert (runner.cache / "tools" / "pulumi" / ARCHIVE).is_file()


def test_a_pinned_digest_is_checked_without_the_checksums_file(runner: ActionSandbox) -> None:
    digest = runner.serve_pulumi()
    runs = runner.up_to_install(pulumi_sha256=digest)
    curl = [c.split(" ")[-1] for c in runs[-1].calls if c.startswith("curl")]
    assert curl == [f"{SDK_URL}/{ARCHIVE}"]


def test_a_tampered_download_installs_nothing(runner: ActionSandbox) -> None:
    runner.serve_pulumi(listed="f" * 64)  # the checksums file lists another digest
    assert runner.run("prepare").returncode == 0
    assert runner.run("configure").returncode == 0
    run = runner.run("install")
    assert run.returncode != 0
    cause = f"checksum mismatch for {ARCHIVE} ({SDK_URL}/{ARCHIVE}): expected {'f' * 64}"
    assert f"gpu-ci step install: {cause}" in run.stderr
    assert f"::error title=gpu-ci step install::{cause}" in run.stdout
    assert not (runner.work / "pulumi").exists()
    assert not (runner.cache / "tools" / "pulumi" / ARCHIVE).exists()


def test_the_second_run_takes_the_cli_from_the_cache(runner: ActionSandbox) -> None:
    digest = runner.serve_pulumi()
    runner.up_to_install(pulumi_sha256=digest)
    for url in runner.sandbox.state.joinpath("urls").iterdir():
        url.unlink()
    run = runner.run("install", pulumi_sha256=digest)
    assert run.returncode == 0, run.stderr
    assert not [c for c in run.calls if c.startswith("curl")]
    assert f"{ARCHIVE}: from the cache, SHA-256 verified" in run.stderr


def test_a_corrupted_cache_entry_is_downloaded_again(runner: ActionSandbox) -> None:
    digest = runner.serve_pulumi()
    runner.up_to_install(pulumi_sha256=digest)
    (runner.cache / "tools" / "pulumi" / ARCHIVE).write_bytes(b"bit rot")
    run = runner.run("install", pulumi_sha256=digest)
    assert run.returncode == 0, run.stderr
    assert f"::warning title=gpu-ci step install::{ARCHIVE} in the cache does not match" in (
        run.stdout
    )
    assert sha256((runner.cache / "tools" / "pulumi" / ARCHIVE).read_bytes()) == digest


def test_a_failed_host_step_is_annotated_by_name(runner: ActionSandbox) -> None:
    runner.up_to_install()
    cause = "nvkind cluster create --name kind failed (exit 1); its output is above"
    runner.sandbox.put(
        "pulumi/up-fail",
        "  command:local:Command (cluster-nvkind-cluster):\n"
        "    error: exit status 1: running ...:\n"
        f"    gpu-ci step nvkind-cluster: {cause}\n",
    )
    up = runner.run("up")
    assert up.returncode == 255
    assert f"::error title=gpu-ci step nvkind-cluster::{cause}" in up.stdout
    assert "gpu-ci step up: pulumi up (full) failed (exit 255) in host step(s) nvkind-cluster" in (
        up.stderr
    )
    assert "::error title=gpu-ci step up::pulumi up (full) failed (exit 255)" in up.stdout
    assert not runner.step_outputs().get("kubeconfig")


def test_a_failed_update_without_a_host_step_still_names_the_step(runner: ActionSandbox) -> None:
    runner.up_to_install()
    runner.sandbox.put("pulumi/up-fail", "error: could not load plugin kubernetes\n")
    up = runner.run("up")
    assert up.returncode == 255
    assert "gpu-ci step up: pulumi up (full) failed (exit 255); its output is above" in up.stderr
    assert "::error title=gpu-ci step up::" in up.stdout


def test_load_images_splits_the_update_around_kind_load(runner: ActionSandbox) -> None:
    runner.sandbox.gpus(("NVIDIA A10", "GPU-a10"))  # the docker stub then answers
    image = "ghcr.io/kubeflow/trainer/trainer-controller-manager:test"
    runner.inputs["INPUT_LOAD_IMAGES"] = image
    runner.inputs["INPUT_PLATFORM_SET"] = "kubeflow-trainer:image.tag=test"
    runner.up_to_install()
    bindir = runner.sandbox.root / "usr/local/bin"  # where the tools step put the pinned kind
    bindir.mkdir(parents=True)
    (bindir / "kind").symlink_to(runner.sandbox.bin / "kind")
    up = runner.run("up")
    assert up.returncode == 0, up.stderr
    order = [
        "kind" if call.startswith("kind load") else "up"
        for call in up.calls
        if call.startswith("kind load") or re.match(r"pulumi .*\bup --stack", call)
    ]
    assert order == ["up", "kind", "up"]
    assert f"kind load docker-image --name kind {image}" in up.calls
    first = yaml.safe_load(runner.sandbox.read("pulumi/up-1.yaml"))
    second = yaml.safe_load(runner.sandbox.read("pulumi/up-2.yaml"))
    assert "gpu-ci:platform" not in first["config"]
    assert second["config"]["gpu-ci:platform"]["set"] == ["kubeflow-trainer:image.tag=test"]
    # What `pulumi stack init` added to the stack file survives both rewrites.
    assert first["encryptionsalt"] == second["encryptionsalt"] == "v1:c3R1Yg==:v1:stub-salt"


def test_an_image_not_built_yet_stops_before_the_platform(runner: ActionSandbox) -> None:
    runner.inputs["INPUT_LOAD_IMAGES"] = "example.com/not-built:test"
    runner.up_to_install()
    runner.sandbox.put("docker-run-fail", "Error: No such image: example.com/not-built:test")
    up = runner.run("up")
    assert up.returncode != 0
    cause = "load-images: example.com/not-built:test is not in this runner's Docker"
    assert f"gpu-ci step up: {cause}" in up.stderr
    assert int(runner.sandbox.read("pulumi/up-count")) == 1  # the cluster only


def test_destroy_drops_the_contents_then_deletes_the_cluster(runner: ActionSandbox) -> None:
    runner.up_to_install()
    assert runner.run("up").returncode == 0
    destroy = runner.run("destroy")
    assert destroy.returncode == 0, destroy.stderr
    urn = (
        "urn:pulumi:gpu-cluster-kind::gpu-ci::gpu-ci:cluster:NvkindCluster"
        "$pulumi:providers:kubernetes::cluster-k8s"
    )
    assert pulumi_calls(destroy.calls) == [
        f"login file://{runner.work}/state",
        "stack select gpu-cluster-kind",
        f"state delete --stack gpu-cluster-kind --target-dependents --yes {urn}",
        "destroy --stack gpu-cluster-kind --yes --skip-preview --suppress-progress "
        "--message gpu-cluster action: destroy",
    ]
    assert not (runner.work / "kubeconfig").exists()
    assert "cluster kind destroyed" in destroy.stderr


# destroy without a cluster: test_action_inputs.py.


def test_a_failed_destroy_is_annotated(runner: ActionSandbox) -> None:
    runner.up_to_install()
    assert runner.run("up").returncode == 0
    runner.sandbox.put(
        "pulumi/destroy-fail",
        "gpu-ci step nvkind-cluster-delete: kind delete cluster --name kind failed (exit 1)\n",
    )
    destroy = runner.run("destroy")
    assert destroy.returncode == 255
    assert (
        "::error title=gpu-ci step nvkind-cluster-delete::kind delete cluster --name kind failed"
        in destroy.stdout
    )
    assert "gpu-ci step destroy: pulumi destroy failed (exit 255)" in destroy.stderr
    assert (runner.work / "kubeconfig").exists()  # kept: the cluster may still be there


def test_an_unknown_command_stops_in_the_first_step(runner: ActionSandbox) -> None:
    """The inputs step (every command's first) refuses it: no later step runs."""
    run = runner.run("inputs", command="apply")
    assert run.returncode == 1
    assert run.stdout == (
        "::error title=gpu-ci input command::input command 'apply': must be up (make the "
        "cluster), collect (a diagnostics bundle of it) or destroy (delete the one an up of "
        "this job made)\n"
    )
    assert run.stderr == (
        "gpu-ci step inputs: stopped before anything was done: 1 problem(s) with the inputs, "
        "each in an annotation above\n"
    )
    assert "cluster-name" not in runner.step_outputs()


@pytest.mark.parametrize("command", ["up", "destroy"])
def test_the_two_commands_pass_the_first_step(runner: ActionSandbox, command: str) -> None:
    run = runner.run("inputs", command=command)
    assert run.returncode == 0, run.stdout + run.stderr
    assert runner.step_outputs()["cluster-name"] == "kind"
