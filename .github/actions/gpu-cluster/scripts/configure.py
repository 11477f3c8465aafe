"""Step configure: the action's inputs as a `local`-target stack file, planned offline.

Writes `Pulumi.<stack>.yaml` (host `target: local`, the nvkind cluster, the recipe's
platform) into the project, plans it with the program's own offline plan (`python -m
stacks plan`: every key validated, the recipe resolved, nothing created) and reads from
that plan what later steps need: the tools step's pins (the host-tools cache), the
cluster's name and node image, the plugins the stack uses, every version (outputs).

    configure.py              the inputs (INPUT_* variables) -> stack file, plan, plan.env
    configure.py phase NAME   rewrite the stack file for phase `cluster` (no platform) or
                              `full`, keeping what `pulumi stack init` added to it

Problems are told in the inputs' words, each once, as an `::error` annotation titled
after its input(s) (`gpu-ci input gpus`) that names each input and the value the workflow
gave it; then one line `gpu-ci step configure: ...` counts them, and the step exits 1.
Every input is checked before anything is planned; a problem the program's own config
checks find in the stack file (`gpu-ci:host.gpus: ...`) is mapped back from the key to
the input that set it (`Origins`), and one at a key the action sets itself says what the
action did and what changes it. The stack file is the action's, never the thing to fix.
Other failures print `gpu-ci step configure: <cause>` and an `::error` annotation.
GPU_CI_ALIASES (the inputs step) names the helm/kind-action aliases the workflow used
(`cluster-name=cluster_name`): a problem names the input as the workflow spelt it.

This file is the entry point; the work is in the modules beside it (run as a script,
Python puts this folder first on sys.path):

    given_inputs.py       the INPUT_* variables as the workflow gave them; InputProblem
    inputs_config.py      the inputs checked, as the `gpu-ci:` config they describe
    stack_file.py         stack-config merged over that config; Pulumi.<stack>.yaml written
    input_origins.py      which input set each key: a plan's problem in the inputs' words
    offline_plan.py       the offline plan, and what later steps read from it (plan.env)
    careful_yaml.py       stack-config (only inside the workspace) and YAML-valued inputs,
                          read through the program's careful reader
    workflow_commands.py  annotations, log lines, die, step outputs: never a workflow
                          command made of a value the workflow gave
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from careful_yaml import GpuCiError
from given_inputs import InputProblem, env, fail
from input_origins import Origins
from inputs_config import CLUSTER_NAME, config_from_inputs, host_arch, tool_inputs
from offline_plan import facts_of, plan, tools_key, versions_of
from stack_file import NAMESPACE, build_config, nest, stack_config_file, write_stack_file
from workflow_commands import die, log, write_output


def read_env_file(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def env_file(header: str, values: dict[str, str]) -> str:
    """KEY=VALUE lines for lib.sh's load_env, which reads one a line: a value with a line
    break would add a line (a key) of its own, so it stops the step."""
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            die(f"the plan's {key} spans lines; no value of the plan does: report it")
    return f"# {header}\n" + "".join(f"{k}={v}\n" for k, v in values.items())


def configure(work: Path) -> None:
    paths = read_env_file(work / "env")
    program, project = Path(paths["GPU_CI_PROGRAM"]), Path(paths["GPU_CI_PROJECT"])
    stack = paths["GPU_CI_STACK"]
    problems: list[InputProblem] = []  # every input checked before any is reported
    images = tool_inputs(problems)
    from_inputs = config_from_inputs(problems)
    from_file = nest(stack_config_file(problems))
    config = build_config(from_inputs, from_file, problems)
    if problems:
        fail(problems)
    if images and f"{NAMESPACE}:platform" not in config:
        log("load-images without a platform: the images are loaded after the cluster")
    (work / "stack.json").write_text(json.dumps(config, indent=2) + "\n")
    stack_file = project / f"Pulumi.{stack}.yaml"
    stack_file.unlink(missing_ok=True)  # a previous job's salt would not match this state
    write_stack_file(stack_file, stack, config, phase="full")
    log(f"wrote {stack_file}")
    snapshot = plan(program, project, stack, work / "plan.json", Origins(from_inputs, from_file))
    facts = facts_of(snapshot, program)
    facts["GPU_CI_IMAGES"] = " ".join(images)
    facts["GPU_CI_PLATFORM"] = "true" if f"{NAMESPACE}:platform" in config else "false"
    header = "Read from the offline plan by the configure step."
    (work / "plan.env").write_text(env_file(header, facts))
    versions = versions_of(snapshot, facts)
    (work / "versions.json").write_text(json.dumps(versions, indent=2) + "\n")
    count = len([r for r in snapshot["resources"] if r.get("custom")])
    log(f"the stack plans: {count} resources; versions {json.dumps(versions)}")
    write_output("tools-key", tools_key(facts, host_arch()))
    write_output("stack-file", str(stack_file))


def phase(work: Path, name: str) -> None:
    if name not in ("cluster", "full"):
        die(f"unknown phase {name!r} (cluster or full)")
    paths = read_env_file(work / "env")
    stack_file = Path(paths["GPU_CI_PROJECT"]) / f"Pulumi.{paths['GPU_CI_STACK']}.yaml"
    config = json.loads((work / "stack.json").read_text())
    try:
        write_stack_file(stack_file, paths["GPU_CI_STACK"], config, phase=name)
    except GpuCiError as err:  # what `pulumi stack init` left there does not read
        die(f"cannot rewrite {stack_file.name}: {err}")


def work_folder() -> Path:
    """GPU_CI_WORK, checked as lib.sh's work_folder checks it: $RUNNER_TEMP/gpu-ci/NAME for
    a cluster name NAME, not a symlink (the step reads and writes only there)."""
    work = Path(env("GPU_CI_WORK"))
    temp = env("RUNNER_TEMP")
    if (
        not temp.startswith("/")
        or work != Path(temp) / "gpu-ci" / work.name
        or not CLUSTER_NAME.fullmatch(work.name)
        or work.is_symlink()
        or work.parent.is_symlink()
    ):
        die(
            f"the cluster's folder '{work}' is not $RUNNER_TEMP/gpu-ci/NAME for a kind "
            "cluster name NAME"
        )
    return work


def main(argv: list[str]) -> None:
    work = work_folder()
    if not (work / "env").is_file():
        die(f"{work}/env is missing: the action's prepare step has not run")
    if argv[:1] == ["phase"] and len(argv) == 2:
        phase(work, argv[1])
    elif not argv:
        configure(work)
    else:
        die(f"usage: configure.py [phase cluster|full], not {' '.join(argv)}")


if __name__ == "__main__":
    main(sys.argv[1:])
