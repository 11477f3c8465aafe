"""Which input set each key of the stack file (`Origins`), to tell a problem the program's
config checks find at a key (`gpu-ci:host.gpus: ...`) as a problem of that input."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from given_inputs import Given, InputProblem, given
from stack_file import NAMESPACE, STACK_CONFIG

INPUT_KEYS: dict[str, str] = {
    f"{NAMESPACE}:host.cdi": "cdi",
    f"{NAMESPACE}:host.gpus": "gpu-count",
    f"{NAMESPACE}:host.versions.toolkit": "toolkit-version",
    f"{NAMESPACE}:host.versions.driverBranch": "driver-branch",
    f"{NAMESPACE}:host.versions.nvkind.commit": "nvkind-commit",
    f"{NAMESPACE}:host.versions.nvkind.commitDate": "nvkind-commit-date",
    f"{NAMESPACE}:cluster.name": "cluster-name",
    f"{NAMESPACE}:cluster.gpus": "gpus",
    f"{NAMESPACE}:cluster.expectGpus": "expect-gpus",
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

PLAIN_CREDENTIAL = "is a credential in plain text"
"""How the program's loader starts a plain credential's problem; its fix (`pulumi config set
--secret`) does not apply to the action's stack."""
NO_SECRETS = (
    "is a credential, and the action's stack holds none (its passphrase is made per job, and "
    "stack-config refuses `secure:` values): leave it out of stack-config; a credential goes "
    "in a stack of your own (`pulumi config set --secret`)"
)
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
            text = f"{key}: {NO_SECRETS if message.startswith(PLAIN_CREDENTIAL) else message}"
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
