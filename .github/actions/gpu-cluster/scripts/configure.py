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
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml

STEP = "configure"
TITLE = f"gpu-ci step {STEP}"
NAMESPACE = "gpu-ci"
CRITERION = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
IMAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:@-]*$")
TOOLS_PARAMS = (
    "BINDIR",
    "STATEDIR",
    "KIND_URL",
    "KIND_SHA256",
    "KUBECTL_URL",
    "KUBECTL_SHA256",
    "HELM_URL",
    "HELM_SHA256",
    "HELM_ARCHIVE_MEMBER",
    "NVKIND_SOURCE",
    "NVKIND_SHA256",
    "NVKIND_COMMIT",
    "GO_URL",
    "GO_SHA256",
)
"""The tools step's parameters the host-tools cache keys and checks its files by."""
PLAN = (sys.executable, "-m", "stacks", "plan")
KEPT_TOP_LEVEL = ("encryptionsalt", "secretsprovider", "encryptedkey")
"""What `pulumi stack init` adds to a stack file; a phase rewrite keeps it."""


# -- printing ------------------------------------------------------------------------------
def escape_data(text: str) -> str:
    """A workflow command's message: % CR LF escaped, so that a value with a line break
    stays in its one annotation and cannot start a workflow command of its own."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property (`title=`): the message's escapes, and `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotate(level: str, message: str, title: str = TITLE) -> None:
    print(f"::{level} title={escape_property(title)}::{escape_data(message)}", flush=True)


def die(cause: str) -> NoReturn:
    print(f"gpu-ci step {STEP}: {cause}", file=sys.stderr, flush=True)
    annotate("error", cause)
    sys.exit(1)


def log(message: str) -> None:
    print(f"gpu-ci step {STEP}: {message}", file=sys.stderr, flush=True)


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def input_variable(name: str) -> str:
    """The variable action.yml passes input `name` in: gpu-count -> INPUT_GPU_COUNT."""
    return "INPUT_" + name.upper().replace("-", "_")


def lines(name: str) -> list[str]:
    return [line.strip() for line in env(name).splitlines() if line.strip()]


def read_env_file(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def write_output(key: str, value: str) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{key}={value}\n")


# -- problems, in the inputs' words --------------------------------------------------------
def aliases() -> dict[str, str]:
    """Our input -> the helm/kind-action name the workflow gave it by (GPU_CI_ALIASES)."""
    pairs = (item.partition("=") for item in env("GPU_CI_ALIASES").split())
    return {ours: theirs for ours, _, theirs in pairs if theirs}


@dataclass(frozen=True)
class Given:
    """An input as the workflow gave it: its name (the helm/kind-action alias, where the
    workflow used that) and its value; `line`: one line (0-based) of a one-a-line input."""

    name: str
    value: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" line {self.line + 1}" if self.line is not None else ""
        return f"{self.name}{where} " + (f"'{self.value}'" if self.value else "(empty)")


def given(name: str, line: int | None = None) -> Given:
    """Input `name` (ours) as the workflow gave it."""
    value = env(input_variable(name))
    if line is not None:
        values = lines(input_variable(name))
        value = values[line] if 0 <= line < len(values) else ""
    return Given(aliases().get(name, name), value, line)


@dataclass(frozen=True)
class InputProblem:
    """One problem, in the inputs' words: the inputs it is about, what the action did
    itself where that is part of it (`did`), and what is wrong."""

    inputs: tuple[Given, ...]
    message: str
    did: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        names = list(dict.fromkeys(g.name for g in self.inputs))
        if not names:
            return TITLE
        return f"gpu-ci input{'s' if len(names) > 1 else ''} {', '.join(names)}"

    @property
    def text(self) -> str:
        text = f"{'; '.join(self.did)}: {self.message}" if self.did else self.message
        if self.inputs:
            label = "inputs" if len(self.inputs) > 1 else "input"
            text = f"{label} {', '.join(map(str, self.inputs))}: {text}"
        return text


def fail(problems: list[InputProblem]) -> NoReturn:
    """Each problem once, as its annotation; one line counting them; exit 1."""
    for problem in problems:
        annotate("error", problem.text, problem.title)
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    log(f"stopped before anything was created: {count}, each in an annotation above")
    sys.exit(1)


STACK_CONFIG = "stack-config"
INPUT_KEYS: dict[str, str] = {
    f"{NAMESPACE}:host.cdi": "cdi",
    f"{NAMESPACE}:host.gpus": "gpu-count",
    f"{NAMESPACE}:host.versions.toolkit": "toolkit-version",
    f"{NAMESPACE}:host.versions.driverBranch": "driver-branch",
    f"{NAMESPACE}:host.versions.nvkind.commit": "nvkind-commit",
    f"{NAMESPACE}:host.versions.nvkind.commitDate": "nvkind-commit-date",
    f"{NAMESPACE}:cluster.name": "cluster-name",
    f"{NAMESPACE}:cluster.gpus": "gpus",
    f"{NAMESPACE}:cluster.nodeImage": "node-image",
    f"{NAMESPACE}:platform.service": "service",
    f"{NAMESPACE}:platform.accelerator": "accelerator",
    f"{NAMESPACE}:platform.intent": "intent",
    f"{NAMESPACE}:platform.platform": "platform",
    f"{NAMESPACE}:platform.os": "os",
    f"{NAMESPACE}:platform.set": "platform-set",
    f"{NAMESPACE}:observability.enabled": "observability",
}
"""Each key of the stack file that an input sets, and that input (`config_from_inputs`)."""
LINE_INPUTS = ("platform-set",)
"""Inputs of one item a line, whose lines are a list key's items (`set[0]`: line 1)."""
ACTION_KEYS: dict[str, str] = {
    f"{NAMESPACE}:capacity": "the action creates no machine: it sets up the runner this job "
    "runs on (the job's runs-on picks that runner)",
    f"{NAMESPACE}:host.target": "the action sets up the runner this job runs on as the host "
    "(the job's runs-on picks that runner)",
    f"{NAMESPACE}:host.arch": "the action took the CPU architecture {value} from this runner "
    "(the job's runs-on picks that runner)",
    f"{NAMESPACE}:cluster.apiServerAddress": "the action serves the cluster's API on {value}, "
    "for this job's steps only (another address: set it in a stack-config file)",
}
"""Each key the action sets itself: what it did (`{value}`: the value it set)."""

KEY_MENTION = re.compile(rf"{NAMESPACE}:[A-Za-z0-9_.\[\]-]*[A-Za-z0-9_\]]")
"""A config key named in a message (`gpu-ci:host.gpus`), without trailing punctuation."""
WORD = re.compile(r"(?<![\w./:-])([A-Za-z][A-Za-z0-9]*)(?![\w/-]|\.\w)")
"""A word of a message that could be a sub-key's name (`gpus`, `nodeImage`, `toolkit`)."""
GIVEN = re.compile(r"\s*\[given: .*\]$", re.DOTALL)
"""The value at the key, which the program's messages end with (the input's is shown)."""
INDEX = re.compile(r"\[([0-9]+)\]")
CONFIG_ERROR = re.compile(rf"^stack '[^']*': invalid {NAMESPACE} config \([0-9]+ problems?\):$")
"""The first line of the program's config error (stacks/config/loader.py's ConfigError)."""
KEYED = re.compile(rf"^({NAMESPACE}:[^\s:]*): (.*)$", re.DOTALL)


@dataclass(frozen=True)
class Source:
    """Who set a key of the stack file: an input (ours, by name), or the action itself
    (`did`: what it did)."""

    input: str = ""
    did: str = ""


def leaves(tree: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every value of a config that is not a map, by its dotted key (`gpu-ci:host.cdi`)."""
    if isinstance(tree, dict) and tree:
        for key, value in tree.items():
            yield from leaves(value, f"{prefix}.{key}" if prefix else str(key))
    elif prefix:
        yield prefix, tree


class Origins:
    """Which input set each key of the stack file the action writes (or that the action
    set it itself), to tell a problem the program finds at a key in the inputs' words."""

    def __init__(self, from_inputs: dict[str, Any], from_file: dict[str, Any]) -> None:
        # Every input's keys, set or not (an empty input leaves its key at gpu-ci's pin).
        self.sources = {key: Source(name) for key, name in INPUT_KEYS.items()}
        for key, value in leaves(from_inputs):
            if key in ACTION_KEYS:
                self.sources[key] = Source(did=ACTION_KEYS[key].format(value=value))
        for key, _ in leaves(from_file):  # stack-config's keys, over the inputs' below them
            for known in [k for k in self.sources if k == key or k.startswith(key + ".")]:
                del self.sources[known]
            self.sources[key] = Source(STACK_CONFIG)

    def source_at(self, key: str) -> tuple[str, Source] | None:
        """The key that set `key` (itself or the nearest one above it), and its source."""
        probe = INDEX.sub("", key)
        while probe:
            if probe in self.sources:
                return probe, self.sources[probe]
            probe = probe.rpartition(".")[0]
        return None

    def sources_of(self, key: str, message: str) -> list[tuple[str, Source]]:
        """Who set what a problem at `key` is about: the key's own source, or for a key
        above several (`gpu-ci:cluster`), those of the sub-keys the message names (`gpus:
        one-per-gpu needs ...`), else those given, else all."""
        found = self.source_at(key)
        if found is not None:
            return [found]
        bare = INDEX.sub("", key)
        below = [(k, s) for k, s in self.sources.items() if k.startswith(bare + ".")]
        words = set(WORD.findall(KEY_MENTION.sub(" ", GIVEN.sub("", message))))
        named = [(k, s) for k, s in below if k[len(bare) + 1 :].split(".")[0] in words]
        set_ = [(k, s) for k, s in below if s.input and given(s.input).value]
        return named or set_ or [(k, s) for k, s in below if s.input] or below

    def in_input_words(self, text: str) -> str:
        """`text` with each key an input sets named as that input (`input gpu-count`)."""

        def swap(match: re.Match[str]) -> str:
            found = self.source_at(match.group(0))
            if found is None or found[1].input in ("", STACK_CONFIG):
                return match.group(0)
            return f"input {given(found[1].input).name}"

        return KEY_MENTION.sub(swap, text)

    def problem(self, key: str, message: str) -> InputProblem:
        """A problem the program found at config `key`, in the inputs' words."""
        sources = self.sources_of(key, message)
        index = INDEX.search(key)
        inputs: list[Given] = []
        did: list[str] = []
        for _, source in sources:
            if source.input:
                line = int(index[1]) if index and source.input in LINE_INPUTS else None
                inputs.append(given(source.input, line))
            elif source.did:
                did.append(source.did)
        if any(s.input == STACK_CONFIG for _, s in sources) or not sources:
            # A key of the workflow's own stack-config file (or of no input): named.
            text = f"{key}: {message}"
        else:
            text = GIVEN.sub("", message)  # the value at the key: the input's, shown above
            for sub_key, source in sources:
                name = sub_key.rpartition(".")[2]
                text = text.removeprefix(f"{name}: ")
                if source.input and name != source.input and name != name.lower():
                    # A camelCase key (nodeImage) as the input's name (node-image).
                    pattern = rf"(?<![\w./:-]){re.escape(name)}(?![\w/-])"
                    text = re.sub(pattern, given(source.input).name, text)
        text = self.in_input_words(text)
        if not sources:
            text = f"the stack the action makes from its inputs does not plan: {text}"
        return InputProblem(tuple(inputs), text, tuple(did))

    def problems_in(self, error: list[str], stack: str) -> list[InputProblem]:
        """The problems of the plan's error output (its `error: ` line and what follows)."""
        found = keyed_problems(error)
        if found is not None:
            return [self.problem(key, message) for key, message in found]
        text = "\n".join(error).strip() or "no error message (its output is above)"
        text = text.replace(f"Pulumi.{stack}.yaml", "the stack file the action writes")
        cause = "the stack the action makes from its inputs does not plan: "
        return [InputProblem((), cause + self.in_input_words(text))]

    def warning(self, text: str) -> InputProblem:
        """A warning of the plan, at a key (`gpu-ci:host.versions: ...`) or not."""
        match = KEYED.match(text)
        return self.problem(match[1], match[2]) if match else InputProblem((), text)


def keyed_problems(error: list[str]) -> list[tuple[str, str]] | None:
    """The `KEY: message` items of the program's config error (ConfigError's text), or
    None for another error. Its closing advice (fix each key in Pulumi.STACK.yaml) is for
    stack files people write, not for the one the action writes: left out."""
    if not error or not CONFIG_ERROR.match(error[0]):
        return None
    items: list[str] = []
    for line in error[1:]:
        if line.startswith("  - "):
            items.append(line.removeprefix("  - "))
        elif line.startswith("    ") and items:
            items[-1] += "\n" + line.removeprefix("    ")
    found = []
    for item in items:
        match = KEYED.match(item)
        found.append((match[1], match[2]) if match else ("", item))
    return found


# -- the stack config ----------------------------------------------------------------------
def host_arch() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
    if machine not in arch:
        die(f"this runner's CPU ({machine}) is neither amd64 nor arm64")
    return arch[machine]


def flag(name: str, default: bool, problems: list[InputProblem]) -> bool:
    value = env(input_variable(name), "true" if default else "false").lower()
    if value not in ("true", "false"):
        problems.append(InputProblem((given(name),), "must be true or false"))
        return default
    return value == "true"


def gpu_layout(text: str, problems: list[InputProblem]) -> Any:
    if text in ("all", "one-per-gpu"):
        return text
    try:
        layout = yaml.safe_load(text)
    except yaml.YAMLError:
        layout = None
    if not isinstance(layout, list):
        problems.append(
            InputProblem(
                (given("gpus"),),
                "must be all, one-per-gpu or a list of GPU indexes per worker such as [[0], [1]]",
            )
        )
        return "all"
    return layout


def nvkind_pin(problems: list[InputProblem]) -> dict[str, Any] | None:
    """nvkind-commit and its date, both or neither."""
    commit, date = env("INPUT_NVKIND_COMMIT"), env("INPUT_NVKIND_COMMIT_DATE")
    if commit and not date:
        problems.append(
            InputProblem(
                (given("nvkind-commit-date"),),
                f"is needed with nvkind-commit '{commit}': the commit's date, YYYY-MM-DD "
                "(`git log -1 --format=%cs COMMIT` in an nvkind clone), which the toolkit x "
                "nvkind x CDI rules order commits by",
            )
        )
    if date and not commit:
        problems.append(
            InputProblem(
                (given("nvkind-commit-date"),),
                "dates nvkind-commit, which is empty: give the commit too, or leave both "
                "empty for gpu-ci's pinned nvkind",
            )
        )
    return {"commit": commit, "commitDate": date} if commit and date else None


def host_from_inputs(problems: list[InputProblem]) -> dict[str, Any]:
    """`gpu-ci:host`: this runner (target local), its versions and GPU count."""
    versions: dict[str, Any] = {}
    if env("INPUT_TOOLKIT_VERSION"):
        versions["toolkit"] = env("INPUT_TOOLKIT_VERSION")
    if env("INPUT_DRIVER_BRANCH"):
        versions["driverBranch"] = env("INPUT_DRIVER_BRANCH")
    nvkind = nvkind_pin(problems)
    if nvkind:
        versions["nvkind"] = nvkind
    host: dict[str, Any] = {
        "target": "local",
        "arch": host_arch(),
        "cdi": flag("cdi", False, problems),
    }
    if versions:
        host["versions"] = versions
    if env("INPUT_GPU_COUNT"):
        count = env("INPUT_GPU_COUNT")
        if not count.isdigit() or int(count) < 1:
            problems.append(InputProblem((given("gpu-count"),), "must be a positive number"))
        else:
            host["gpus"] = int(count)
    return host


def platform_from_inputs(problems: list[InputProblem]) -> dict[str, Any] | None:
    """`gpu-ci:platform`: the recipe's criteria and overrides (None: deploy-platform false)."""
    if not flag("deploy-platform", True, problems):
        if lines("INPUT_PLATFORM_SET"):
            problems.append(
                InputProblem(
                    (given("platform-set"), given("deploy-platform")),
                    "platform-set overrides the platform's components, and deploy-platform: "
                    "false deploys none; drop platform-set, or deploy the platform",
                )
            )
        return None
    criteria = {}
    for key in ("service", "accelerator", "intent", "platform", "os"):
        value = env(input_variable(key))
        if not value:
            continue
        if not CRITERION.match(value):
            problems.append(
                InputProblem((given(key),), "is not a recipe criterion (lowercase, e.g. kind)")
            )
        criteria[key] = value
    return {**criteria, "set": lines("INPUT_PLATFORM_SET")}


def config_from_inputs(problems: list[InputProblem]) -> dict[str, Any]:
    """The stack config the inputs describe, as `gpu-ci:` keys (before stack-config);
    INPUT_KEYS and ACTION_KEYS name who sets each key. A bad input is added to `problems`."""
    cluster: dict[str, Any] = {
        "name": env("INPUT_CLUSTER_NAME", "kind"),
        "gpus": gpu_layout(env("INPUT_GPUS", "all"), problems),
        # The job's own steps are the only clients: the API server stays off the runner's
        # public address (kind's own default; gpu-ci's is 0.0.0.0, for remote deployers).
        "apiServerAddress": "127.0.0.1",
    }
    if env("INPUT_NODE_IMAGE"):
        cluster["nodeImage"] = env("INPUT_NODE_IMAGE")
    config: dict[str, Any] = {
        f"{NAMESPACE}:capacity": "none",
        f"{NAMESPACE}:host": host_from_inputs(problems),
        f"{NAMESPACE}:cluster": cluster,
    }
    platform_config = platform_from_inputs(problems)
    if platform_config is not None:
        config[f"{NAMESPACE}:platform"] = platform_config
    observability = flag("observability", False, problems)
    if observability and platform_config is None:
        problems.append(
            InputProblem(
                (given("observability"), given("deploy-platform")),
                "observability: true watches the platform's GPUs; it needs deploy-platform: true",
            )
        )
    # Off unless asked: gpu-ci's default (on where a stack deploys onto a cluster) is for
    # long-lived clusters; a job's cluster is gone before a dashboard would show anything.
    config[f"{NAMESPACE}:observability"] = {"enabled": observability}
    return config


def tool_inputs(problems: list[InputProblem]) -> list[str]:
    """pulumi-version, pulumi-sha256 and load-images checked; the images, one a line."""
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", env("INPUT_PULUMI_VERSION")):
        problems.append(InputProblem((given("pulumi-version"),), "must be X.Y.Z"))
    digest = env("INPUT_PULUMI_SHA256")
    if digest and not re.fullmatch(r"[0-9a-f]{64}", digest):
        problems.append(
            InputProblem(
                (given("pulumi-sha256"),), "must be 64 lowercase hex characters (or empty)"
            )
        )
    images = lines("INPUT_LOAD_IMAGES")
    for index, image in enumerate(images):
        if not IMAGE.match(image):
            problems.append(
                InputProblem((given("load-images", index),), "is not an image reference")
            )
    return images


def merge(base: Any, extra: Any) -> Any:
    """`extra` over `base`: maps key by key, anything else replaced (lists too)."""
    if isinstance(base, dict) and isinstance(extra, dict):
        merged = dict(base)
        for key, value in extra.items():
            merged[key] = merge(base.get(key), value)
        return merged
    return extra


def has_secure(value: Any) -> bool:
    if isinstance(value, dict):
        return "secure" in value or any(has_secure(v) for v in value.values())
    if isinstance(value, list):
        return any(has_secure(v) for v in value)
    return False


def stack_config_file(problems: list[InputProblem]) -> dict[str, Any]:
    """The `config:` of the stack-config input (a path in the workspace), or nothing."""
    given_path = env("INPUT_STACK_CONFIG")
    if not given_path:
        return {}
    path = Path(given_path)
    if not path.is_absolute():
        path = Path(env("GITHUB_WORKSPACE", ".")) / path
    source = (given(STACK_CONFIG),)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as err:
        problems.append(InputProblem(source, f"cannot read it ({err.strerror})"))
        return {}
    except yaml.YAMLError as err:
        problems.append(InputProblem(source, f"not YAML ({err})"))
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        problems.append(InputProblem(source, "expected a stack file with a `config:` map"))
        return {}
    config: dict[str, Any] = data["config"]
    if has_secure(config):
        problems.append(
            InputProblem(
                source,
                "has a `secure:` value; the action's stack is local and its passphrase is "
                "made per job, so it holds no secrets: leave secrets out",
            )
        )
        return {}
    return config


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Pulumi's `gpu-ci:host.cdi: true` spelling as `gpu-ci:host: {cdi: true}`."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if ":" not in key:
            nested[key] = value
            continue
        namespace, _, path = key.partition(":")
        top, *rest = path.split(".")
        tree = value
        for part in reversed(rest):
            tree = {part: tree}
        nested = merge(nested, {f"{namespace}:{top}": tree})
    return nested


def build_config(
    from_inputs: dict[str, Any], from_file: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Any]:
    """The inputs' config with stack-config's merged over it (which keeps what the action
    needs: no machine of its own, this runner as the host)."""
    config: dict[str, Any] = merge(from_inputs, from_file)
    source = (given(STACK_CONFIG),)
    if config.get(f"{NAMESPACE}:capacity") != "none":
        problems.append(
            InputProblem(
                source,
                f"sets {NAMESPACE}:capacity; the action creates no machine (it runs on this "
                "runner): remove it",
            )
        )
    host = config.get(f"{NAMESPACE}:host")
    if not isinstance(host, dict) or host.get("target") != "local":
        problems.append(
            InputProblem(
                source,
                f"sets {NAMESPACE}:host.target; the action bootstraps this runner (target "
                "local): remove it",
            )
        )
    return config


def write_stack_file(path: Path, stack: str, config: dict[str, Any], *, phase: str) -> None:
    kept: dict[str, Any] = {}
    if path.is_file():
        old = yaml.safe_load(path.read_text()) or {}
        kept = {k: old[k] for k in KEPT_TOP_LEVEL if k in old}
    if phase == "cluster":
        config = {k: v for k, v in config.items() if k != f"{NAMESPACE}:platform"}
    header = (
        "# Written by the gpu-cluster action (.github/actions/gpu-cluster) from its inputs;\n"
        f"# phase: {phase}. Plan it offline: python -m stacks plan {stack}\n"
    )
    body = yaml.safe_dump({"config": config, **kept}, sort_keys=False, default_flow_style=False)
    path.write_text(header + body)


# -- the offline plan ----------------------------------------------------------------------
def plan(program: Path, project: Path, stack: str, out: Path, origins: Origins) -> dict[str, Any]:
    """The offline plan's snapshot; its warnings and problems, in the inputs' words, once."""
    done = subprocess.run(
        [*PLAN, stack, "--project-dir", str(project), "--json", str(out), "--quiet"],
        cwd=program,
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stdout.write(done.stdout)
    error: list[str] = []  # the `error: ` line and all after it: the CLI stops there
    for line in done.stderr.splitlines():
        if error or line.startswith("error: "):
            error.append(line.removeprefix("error: ") if not error else line)
        elif line.startswith("warning: "):
            warning = origins.warning(line.removeprefix("warning: "))
            annotate("warning", warning.text, warning.title)
        else:
            print(line, file=sys.stderr)
    if done.returncode != 0:
        fail(origins.problems_in(error, stack))
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def readonly_params(script: str) -> dict[str, str]:
    """The `readonly NAME=VALUE` parameters at the top of a rendered host step."""
    params: dict[str, str] = {}
    for line in script.splitlines():
        match = re.match(r"^readonly ([A-Z_][A-Z0-9_]*)=(.*)$", line)
        if match and not match.group(2).startswith(("(", '"$')):
            try:
                words = shlex.split(match.group(2))
            except ValueError:
                continue
            params[match.group(1)] = words[0] if words else ""
    return params


def version_in(url: str) -> str:
    match = re.search(r"[0-9]+\.[0-9]+\.[0-9]+", url)
    return match.group(0) if match else ""


def requirement_pins(requirements: Path) -> dict[str, str]:
    """`name==version` lines (a hashed lock file's too: `name==version \\`, then hashes)."""
    pins = {}
    for line in requirements.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;\\]+)", line)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(3)
    return pins


def facts_of(snapshot: dict[str, Any], program: Path) -> dict[str, str]:
    """What later steps read from the plan, as GPU_CI_* lines of plan.env."""
    by_name = {r["name"]: r for r in snapshot["resources"]}
    steps = {
        name: readonly_params(r["inputs"].get("stdin", ""))
        for name, r in by_name.items()
        if r["type"] == "command:local:Command"
    }
    tools = steps.get("host-tools")
    cluster = steps.get("cluster-nvkind-cluster")
    if tools is None or cluster is None:
        die("the plan has no host-tools or cluster-nvkind-cluster step")
    facts = {f"GPU_CI_TOOLS_{key}": tools.get(key, "") for key in TOOLS_PARAMS}
    facts["GPU_CI_KIND_CLUSTER"] = cluster["CLUSTER_NAME"]
    facts["GPU_CI_NODE_IMAGE"] = cluster["NODE_IMAGE"]
    facts["GPU_CI_USE_SUDO"] = cluster.get("USE_SUDO", "true")
    provider = by_name.get("cluster-k8s")
    facts["GPU_CI_K8S_PROVIDER_URN"] = provider["urn"] if provider else ""
    packages = set()
    for resource in snapshot["resources"]:
        kind = resource["type"]
        if kind.startswith("pulumi:providers:"):
            packages.add(kind.removeprefix("pulumi:providers:"))
        elif not kind.startswith(("gpu-ci:", "pulumi:")):
            packages.add(kind.split(":")[0])
    pins = requirement_pins(program / "requirements.txt")
    plugins = []
    for package in sorted(packages):
        version = pins.get(f"pulumi-{package}")
        if version is None:
            die(f"the plan uses provider {package}, which requirements.txt does not pin")
        plugins.append(f"{package}@{version}")
    facts["GPU_CI_PLUGINS"] = " ".join(plugins)
    return facts


def versions_of(snapshot: dict[str, Any], facts: dict[str, str]) -> dict[str, Any]:
    by_name = {r["name"]: r for r in snapshot["resources"]}
    steps = {
        name: readonly_params(r["inputs"].get("stdin", ""))
        for name, r in by_name.items()
        if r["type"] == "command:local:Command"
    }
    toolkit = steps.get("host-container-toolkit", {})
    driver = steps.get("host-nvidia-driver", {})
    cluster = snapshot["outputs"].get("cluster", {})
    charts = {
        r["inputs"].get("name", r["name"]): f"{r['inputs']['chart']} {r['inputs']['version']}"
        for r in snapshot["resources"]
        if r["type"] == "kubernetes:helm.sh/v3:Release"
    }
    return {
        "pulumi": env("INPUT_PULUMI_VERSION"),
        "plugins": facts["GPU_CI_PLUGINS"],
        "driverPackage": driver.get("DRIVER_PACKAGE", ""),
        "toolkit": toolkit.get("TOOLKIT_VERSION", ""),
        "kind": version_in(facts["GPU_CI_TOOLS_KIND_URL"]),
        "kubectl": version_in(facts["GPU_CI_TOOLS_KUBECTL_URL"]),
        "helm": version_in(facts["GPU_CI_TOOLS_HELM_URL"]),
        "go": version_in(facts["GPU_CI_TOOLS_GO_URL"]),
        "nvkind": facts["GPU_CI_TOOLS_NVKIND_COMMIT"] or facts["GPU_CI_TOOLS_NVKIND_SHA256"],
        "nodeImage": facts["GPU_CI_NODE_IMAGE"],
        "kubernetes": cluster.get("kubernetesVersion", "") if isinstance(cluster, dict) else "",
        "charts": charts,
    }


def tools_key(facts: dict[str, str], arch: str) -> str:
    """The host-tools cache key: every pin of what it holds (CLI, plugins, tools)."""
    pinned = {
        "pulumi": env("INPUT_PULUMI_VERSION"),
        "pulumiSha256": env("INPUT_PULUMI_SHA256"),
        "plugins": facts["GPU_CI_PLUGINS"],
        **{k: v for k, v in facts.items() if k.startswith("GPU_CI_TOOLS_") and "URL" not in k},
    }
    digest = hashlib.sha256(json.dumps(pinned, sort_keys=True).encode()).hexdigest()
    return f"gpu-ci-tools-v1-linux-{arch}-{digest[:40]}"


# -- the steps -----------------------------------------------------------------------------
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
    (work / "plan.env").write_text(
        "# Read from the offline plan by the configure step.\n"
        + "".join(f"{k}={v}\n" for k, v in facts.items())
    )
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
    write_stack_file(stack_file, paths["GPU_CI_STACK"], config, phase=name)


def main(argv: list[str]) -> None:
    work = Path(env("GPU_CI_WORK"))
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
