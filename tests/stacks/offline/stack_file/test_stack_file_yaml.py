"""Stack files read as the Pulumi CLI reads them: YAML 1.2 (Go's yaml.v3), and refused
with one line naming the file, the line and the fix where the CLI refuses them or where no
stack file needs what they hold (duplicate keys, alias bombs, deep nesting, huge integers,
non-string keys, tags beyond the core ones, bytes that are not UTF-8)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from core import yaml_text
from core.errors import GpuCiError
from stacks.offline.cli import main as stacks_main
from stacks.offline.plan import REPO
from stacks.offline.stack_file.cli_values import strip_secure
from stacks.offline.stack_file.read import read_stack_file

EXAMPLE_STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))


def project(root: Path, stacks: dict[str, str | bytes]) -> Path:
    """A project directory with the checkout's Pulumi.yaml and these stack files."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    for stack, text in stacks.items():
        path = root / f"Pulumi.{stack}.yaml"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


# -- refused: one line, exit 2 ---------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    stack: str
    text: str | bytes
    message: str  # what `python -m stacks plan STACK` prints on stderr, after "error: "


def bomb(levels: int) -> str:
    """A "billion laughs": ten `lol`s, then `levels` lists of ten aliases of the last."""
    lines = ["config:", "  gpu-ci:lol:", "    a: &a [" + ", ".join(["lol"] * 10) + "]"]
    for i in range(1, levels + 1):
        this, last = chr(ord("a") + i), chr(ord("a") + i - 1)
        lines.append(f"    {this}: &{this} [" + ", ".join([f"*{last}"] * 10) + "]")
    return "\n".join(lines) + "\n"


VM = "config:\n  gpu-ci:capacity: none\n  gpu-ci:vm:\n"
FIX_TAG = (
    "remove it: only YAML's core types (strings, numbers, true/false, null, lists and "
    "mappings) are config"
)
REFUSED = [
    Refused(
        "duplicate",
        "config:\n  gpu-ci:capacity: none\n"
        + "".join(f"  # line {n}\n" for n in range(3, 10))
        + "  gpu-ci:vm:\n    shape: VM.GPU.A10.1\n    count: 1\n"
        + "".join(f"    # line {n}\n" for n in range(13, 17))
        + "    count: 2\n",
        "Pulumi.duplicate.yaml: config key gpu-ci:vm.count is given twice (lines 12 and 17); "
        "keep one",
    ),
    Refused(
        "duplicate-top",
        "config:\n  gpu-ci:capacity: none\n  gpu-ci:owner: a\n  gpu-ci:owner: b\n",
        "Pulumi.duplicate-top.yaml: config key gpu-ci:owner is given twice (lines 3 and 4); "
        "keep one",
    ),
    Refused(
        "duplicate-nested",
        VM + "    image:\n      operatingSystem: a\n      operatingSystem: b\n",
        "Pulumi.duplicate-nested.yaml: config key gpu-ci:vm.image.operatingSystem is given "
        "twice (lines 5 and 6); keep one",
    ),
    Refused(
        "duplicate-in-list",
        "config:\n  gpu-ci:arc:\n    scaleSets:\n      - name: a\n      - name: b\n"
        "        name: c\n",
        "Pulumi.duplicate-in-list.yaml: config key gpu-ci:arc.scaleSets[1].name is given "
        "twice (lines 5 and 6); keep one",
    ),
    Refused(
        "duplicate-config",
        "config:\n  gpu-ci:capacity: none\nconfig:\n  gpu-ci:capacity: vm\n",
        "Pulumi.duplicate-config.yaml: key config is given twice (lines 1 and 3); keep one",
    ),
    Refused(
        # yaml.v3 compares keys as written: "count" and count are one key
        "duplicate-quoted",
        VM + '    count: 1\n    "count": 2\n',
        "Pulumi.duplicate-quoted.yaml: config key gpu-ci:vm.count is given twice "
        "(lines 4 and 5); keep one",
    ),
    Refused(
        "alias-bomb",
        bomb(5),  # 10^6 values once expanded
        "Pulumi.alias-bomb.yaml: aliases expand config key gpu-ci:lol past 100000 values "
        "(line 3); write the values out instead of nesting aliases",
    ),
    Refused(
        "alias-cycle",
        "config:\n  gpu-ci:vm: &vm\n    self: *vm\n",
        "Pulumi.alias-cycle.yaml: config key gpu-ci:vm.self is an alias of a mapping or list "
        "it is inside (line 2); an alias must refer to a value outside it",
    ),
    Refused(
        "deep",
        "config:\n  gpu-ci:vm:\n    x: " + "[" * 120 + "]" * 120 + "\n",
        "Pulumi.deep.yaml: values nest more than 100 levels deep (line 3); flatten them: no "
        "stack config nests that deep",
    ),
    Refused(
        # a million levels: libyaml's own composer would crash the interpreter
        "very-deep",
        "config:\n  gpu-ci:vm: " + "[" * 1_000_000 + "]" * 1_000_000 + "\n",
        "Pulumi.very-deep.yaml: values nest more than 100 levels deep (line 2); flatten them: "
        "no stack config nests that deep",
    ),
    Refused(
        "deep-by-alias",
        "config:\n  gpu-ci:a: &a " + "[" * 60 + "]" * 60 + "\n"
        "  gpu-ci:b: " + "[" * 60 + "*a" + "]" * 60 + "\n",
        "Pulumi.deep-by-alias.yaml: values nest more than 100 levels deep (line 2); flatten "
        "them: no stack config nests that deep",
    ),
    Refused(
        "huge-integer",
        VM + "    count: " + "9" * 31 + "\n",
        "Pulumi.huge-integer.yaml: config key gpu-ci:vm.count is an integer of 31 digits, "
        "more than 30 (line 4); quote it if it is an ID or other text",
    ),
    Refused(
        # yaml.v3 reads a hex integer past 64 bits as text, and refuses it as an !!int
        "huge-hex",
        VM + "    count: !!int 0x" + "f" * 40 + "\n",
        "Pulumi.huge-hex.yaml: config key gpu-ci:vm.count is tagged !!int, but "
        f"'0x{'f' * 40}' is not an integer (line 4); remove the tag or fix the value",
    ),
    Refused(
        "integer-key",
        VM + "    1: one\n",
        "Pulumi.integer-key.yaml: config key gpu-ci:vm has the key 1, which YAML reads as an "
        'integer, not a string (line 4); quote it: "1"',
    ),
    Refused(
        "bool-key",
        VM + "    true: yes\n",
        "Pulumi.bool-key.yaml: config key gpu-ci:vm has the key true, which YAML reads as a "
        'boolean, not a string (line 4); quote it: "true"',
    ),
    Refused(
        "null-key",
        VM + "    ~: x\n",
        "Pulumi.null-key.yaml: config key gpu-ci:vm has the key ~, which YAML reads as null, "
        'not a string (line 4); quote it: "~"',
    ),
    Refused(
        "integer-config-key",
        "config:\n  42: x\n",
        "Pulumi.integer-config-key.yaml: key config has the key 42, which YAML reads as an "
        'integer, not a string (line 2); quote it: "42"',
    ),
    Refused(
        "list-key",
        VM + "    ? [a, b]\n    : x\n",
        "Pulumi.list-key.yaml: config key gpu-ci:vm has a list as a key (line 4); keys must "
        "be strings",
    ),
    Refused(
        "binary",
        "config:\n  gpu-ci:owner: !!binary aGVsbG8=\n",
        f"Pulumi.binary.yaml: config key gpu-ci:owner has the tag !!binary, which stack files "
        f"do not use (line 2); {FIX_TAG}",
    ),
    Refused(
        "python-tag",
        "config:\n  gpu-ci:owner: !!python/object/apply:os.system [echo owned]\n",
        "Pulumi.python-tag.yaml: config key gpu-ci:owner has the tag "
        f"!!python/object/apply:os.system, which stack files do not use (line 2); {FIX_TAG}",
    ),
    Refused(
        "custom-tag",
        VM + "    image: !ubuntu {version: '24.04'}\n",
        f"Pulumi.custom-tag.yaml: config key gpu-ci:vm.image has the tag !ubuntu, which stack "
        f"files do not use (line 4); {FIX_TAG}",
    ),
    Refused(
        "timestamp-tag",
        VM + "    since: !!timestamp 2026-07-01\n",
        f"Pulumi.timestamp-tag.yaml: config key gpu-ci:vm.since has the tag !!timestamp, "
        f"which stack files do not use (line 4); {FIX_TAG}",
    ),
    Refused(
        "set-tag",
        VM + "    labels: !!set {a, b}\n",
        f"Pulumi.set-tag.yaml: config key gpu-ci:vm.labels has the tag !!set, which stack "
        f"files do not use (line 4); {FIX_TAG}",
    ),
    Refused(
        "tag-mismatch",
        VM + "    count: !!int two\n",
        "Pulumi.tag-mismatch.yaml: config key gpu-ci:vm.count is tagged !!int, but 'two' is "
        "not an integer (line 4); remove the tag or fix the value",
    ),
    Refused(
        "infinity",
        VM + "    bootVolumeSizeGbs: .inf\n",
        "Pulumi.infinity.yaml: config key gpu-ci:vm.bootVolumeSizeGbs is .inf, which JSON "
        "cannot hold, and the CLI passes objects to the program as JSON (line 4); quote it: "
        '".inf"',
    ),
    Refused(
        "merge-scalar",
        VM + "    <<: 3\n",
        "Pulumi.merge-scalar.yaml: config key gpu-ci:vm merges (<<) something that is not a "
        "mapping (line 4); merge a mapping, like <<: *defaults",
    ),
    Refused(
        "latin-1",
        "config:\n  gpu-ci:capacity: none\n  gpu-ci:owner: caf\xe9\n".encode("latin-1"),
        "Pulumi.latin-1.yaml: byte 0xe9 is not UTF-8 (line 3); save the file as UTF-8",
    ),
    Refused(
        "utf-16",
        "config:\n  gpu-ci:capacity: none\n".encode("utf-16-le"),  # no byte-order mark
        "Pulumi.utf-16.yaml: the file holds NUL bytes, as UTF-16 without a byte-order mark "
        "does (line 1); save it as UTF-8",
    ),
    Refused(
        "control-character",
        "config:\n  gpu-ci:capacity: none\n  gpu-ci:owner: a\x07b\n",
        "Pulumi.control-character.yaml: character U+0007 is not allowed in YAML (line 3); "
        'remove it, or write it as "\\x07" in a double-quoted string',
    ),
    Refused(
        "syntax",
        "config:\n  gpu-ci:capacity: vm\n   gpu-ci:host: {}\n",
        "Pulumi.syntax.yaml: not valid YAML: mapping values are not allowed here (line 3, "
        "column 15); fix the YAML there",
    ),
    Refused(
        "unclosed",
        "config:\n  gpu-ci:capacity: [vm\n",
        "Pulumi.unclosed.yaml: not valid YAML: while parsing a flow sequence (line 2), "
        "expected ',' or ']', but got '<stream end>' (line 3, column 1); fix the YAML there",
    ),
    Refused(
        "undefined-alias",
        "config:\n  gpu-ci:capacity: *nope\n",
        "Pulumi.undefined-alias.yaml: not valid YAML: found undefined alias 'nope' (line 2, "
        "column 20); fix the YAML there",
    ),
]


@pytest.fixture(scope="module")
def refused_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("refused"), {case.stack: case.text for case in REFUSED})


def plan_in_process(root: Path, stack: str) -> tuple[int, str, str]:
    """`python -m stacks plan STACK --project-dir DIR` as its `main` runs it: the exit
    code, stdout and stderr (one process per case would cost ~0.6 s of imports each)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = stacks_main(["plan", stack, "--project-dir", str(root)])
    return code, out.getvalue(), err.getvalue()


def plan_cli(root: Path, stack: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "plan", stack, "--project-dir", str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("case", REFUSED, ids=[case.stack for case in REFUSED])
def test_a_bad_stack_file_is_refused_in_one_line(case: Refused, refused_project: Path) -> None:
    assert plan_in_process(refused_project, case.stack) == (2, "", f"error: {case.message}\n")


CLI_CASES = ["duplicate", "alias-bomb", "very-deep", "python-tag", "utf-16", "syntax"]


def test_the_cli_prints_the_refusal_and_exits_2(refused_project: Path) -> None:
    """The same through `python -m stacks plan`, for a few cases (side by side)."""
    cases = [case for case in REFUSED if case.stack in CLI_CASES]
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        done = list(pool.map(lambda case: plan_cli(refused_project, case.stack), cases))
    for case, result in zip(cases, done, strict=True):
        assert (result.returncode, result.stdout) == (2, ""), case.stack
        assert result.stderr == f"error: {case.message}\n"
        assert "Traceback" not in result.stderr and "<unicode string>" not in result.stderr


def test_every_refusal_names_the_file_and_a_line() -> None:
    assert len({case.stack for case in REFUSED}) == len(REFUSED)
    for case in REFUSED:
        assert case.message.startswith(f"Pulumi.{case.stack}.yaml: "), case.stack
        assert "(line " in case.message or "(lines " in case.message, case.stack


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    """10^9 values once expanded: refused as fast as 10^6 (the old reader took 27 s for
    10^6, expanding them all)."""
    root = project(tmp_path, {"bomb": bomb(8)})
    start = time.perf_counter()
    with pytest.raises(GpuCiError, match="aliases expand config key gpu-ci:lol past 100000"):
        read_stack_file(root, "bomb")
    assert time.perf_counter() - start < 2


# -- read as YAML 1.2 ------------------------------------------------------------------------

READINGS = """\
config:
  gpu-ci:switch: on
  gpu-ci:answer: yes
  gpu-ci:date: 2026-07-01
  gpu-ci:hex: 0x1F
  gpu-ci:flag: true
  gpu-ci:Flag: True
  gpu-ci:empty:
  gpu-ci:token: 1234567890123456789012345678901234567890
  gpu-ci:values:
    switch: on
    answer: yes
    no: off
    y: n
    date: 2026-07-01
    time: 12:30
    hex: 0x1F
    octal: 0o17
    legacy-octal: 017
    binary: 0b101
    grouped: 1_000
    float: 1.5
    whole: 1.0
    exponent: 1e3
    flag: true
    Flag: False
    nothing: ~
    quoted: "0x1F"
    list: [on, off, 2026-07-01, 0x1F]
"""


def test_yaml_1_2_values_reach_the_program_as_the_cli_hands_them(tmp_path: Path) -> None:
    """Top-level values are the text as written (the CLI reads them into strings);
    objects are JSON of yaml.v3's reading: `on`, `yes`, `no`, `off` and dates stay strings,
    only true/false are booleans, `0x1F` and `0o17` are integers, `1.0` is written as 1."""
    config = read_stack_file(project(tmp_path, {"readings": READINGS}), "readings").config
    assert {key: value for key, value in config.items() if key != "gpu-ci:values"} == {
        "gpu-ci:switch": "on",
        "gpu-ci:answer": "yes",
        "gpu-ci:date": "2026-07-01",
        "gpu-ci:hex": "0x1F",
        "gpu-ci:flag": "true",
        "gpu-ci:Flag": "True",
        "gpu-ci:empty": "",
        "gpu-ci:token": "1234567890123456789012345678901234567890",
    }
    assert json.loads(config["gpu-ci:values"]) == {
        "switch": "on",
        "answer": "yes",
        "no": "off",
        "y": "n",
        "date": "2026-07-01",
        "time": "12:30",
        "hex": 31,
        "octal": 15,
        "legacy-octal": 15,
        "binary": 5,
        "grouped": 1000,
        "float": 1.5,
        "whole": 1,
        "exponent": 1000,
        "flag": True,
        "Flag": False,
        "nothing": None,
        "quoted": "0x1F",
        "list": ["on", "off", "2026-07-01", 31],
    }
    assert '"whole": 1,' in config["gpu-ci:values"]  # an integer, as Go's JSON writes 1.0
    # YAML 1.1 (PyYAML's own resolvers) would have read these differently:
    old = yaml.safe_load(READINGS)["config"]["gpu-ci:values"]
    assert (old["switch"], old["answer"], old["time"], old["octal"]) == (True, True, 750, "0o17")


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("on", yaml_text.STR),
        ("yes", yaml_text.STR),
        ("Off", yaml_text.STR),
        ("2026-07-01", yaml_text.STR),
        ("12:30", yaml_text.STR),
        ("true", yaml_text.BOOL),
        ("FALSE", yaml_text.BOOL),
        ("tRUE", yaml_text.STR),
        ("", yaml_text.NULL),
        ("~", yaml_text.NULL),
        ("Null", yaml_text.NULL),
        ("0x1F", yaml_text.INT),
        ("-0x1F", yaml_text.INT),
        ("0o17", yaml_text.INT),
        ("017", yaml_text.INT),
        ("0b101", yaml_text.INT),
        ("1_000", yaml_text.INT),
        ("+12", yaml_text.INT),
        ("18446744073709551615", yaml_text.INT),  # Go's uint64
        ("18446744073709551616", yaml_text.FLOAT),  # past it: a float, as in Go
        ("0x1" + "0" * 16, yaml_text.STR),  # a hex integer past uint64 is text
        ("08", yaml_text.FLOAT),  # not octal: yaml.v3 falls back to a float
        ("1.5", yaml_text.FLOAT),
        ("1e3", yaml_text.FLOAT),
        (".5", yaml_text.FLOAT),
        (".inf", yaml_text.FLOAT),
        ("-.Inf", yaml_text.FLOAT),
        (".NaN", yaml_text.FLOAT),
        ("1e400", yaml_text.STR),  # overflows: Go's ParseFloat refuses it
        ("1" * 5000, yaml_text.STR),
        ("<<", yaml_text.MERGE),
        ("-", yaml_text.STR),
        ("v1.2", yaml_text.STR),
    ],
)
def test_plain_scalars_resolve_as_yaml_v3_resolves_them(text: str, tag: str) -> None:
    assert yaml_text.core_tag(text) == tag


def test_merges_and_aliases_read_as_the_cli_reads_them(tmp_path: Path) -> None:
    text = (
        "defaults: &defaults\n  shape: VM.GPU.A10.1\n  count: 1\n"
        "config:\n  gpu-ci:vm:\n    <<: *defaults\n    count: 2\n  gpu-ci:owner: &o team\n"
        "  gpu-ci:runner:\n    owner: *o\n"
    )
    config = read_stack_file(project(tmp_path, {"merged": text}), "merged").config
    assert json.loads(config["gpu-ci:vm"]) == {"shape": "VM.GPU.A10.1", "count": 2}
    assert config["gpu-ci:owner"] == "team"
    assert json.loads(config["gpu-ci:runner"]) == {"owner": "team"}


def test_byte_order_marks_are_read(tmp_path: Path) -> None:
    text = "config:\n  gpu-ci:owner: café\n"
    root = project(
        tmp_path,
        {"utf8-bom": "\ufeff" + text, "utf16-bom": text.encode("utf-16")},  # BOM first
    )
    assert read_stack_file(root, "utf8-bom").config == {"gpu-ci:owner": "café"}
    assert read_stack_file(root, "utf16-bom").config == {"gpu-ci:owner": "café"}


def test_secure_values_keep_their_placeholders(tmp_path: Path) -> None:
    text = (
        "config:\n  gpu-ci:owner:\n    secure: v1:abc\n"
        "  gpu-ci:runner:\n    token:\n      secure: v1:def\n"
    )
    file = read_stack_file(project(tmp_path, {"secrets": text}), "secrets")
    assert file.secret_keys == {"gpu-ci:owner", "gpu-ci:runner"}
    assert file.config["gpu-ci:owner"].startswith("offline-placeholder:gpu-ci:owner:")
    token = json.loads(file.config["gpu-ci:runner"])["token"]
    assert token.startswith("offline-placeholder:gpu-ci:runner.token:")


# -- the example stacks ----------------------------------------------------------------------


def yaml_1_1_reading(stack: str) -> dict[str, str]:
    """The config as the reader before YAML 1.2 produced it: PyYAML's YAML 1.1 resolvers,
    every value through str() or JSON."""
    doc = yaml.safe_load((REPO / f"Pulumi.{stack}.yaml").read_text())
    config: dict[str, str] = {}
    for key, value in (doc.get("config") or {}).items():
        stripped: Any = strip_secure(value, key, [])
        if isinstance(stripped, (dict, list)):
            config[key] = json.dumps(stripped, sort_keys=True)
        elif isinstance(stripped, bool):
            config[key] = "true" if stripped else "false"
        else:
            config[key] = str(stripped)
    return config


@pytest.mark.parametrize("stack", EXAMPLE_STACKS)
def test_example_stacks_read_the_same_as_before_yaml_1_2(stack: str) -> None:
    """No example relies on a value YAML 1.1 and 1.2 read differently."""
    assert read_stack_file(REPO, stack).config == yaml_1_1_reading(stack)


def test_libyaml_and_pure_python_read_stack_files_alike() -> None:
    assert yaml_text.CoreCSafeLoader.__mro__[1].__name__ == "CSafeLoader"
    texts = [(REPO / f"Pulumi.{stack}.yaml").read_text() for stack in EXAMPLE_STACKS]
    for text in [*texts, READINGS]:
        with_libyaml = yaml.load(text, Loader=yaml_text.CoreCSafeLoader)
        assert with_libyaml == yaml.load(text, Loader=yaml_text.CoreSafeLoader)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # Pulumi reads a map whose `secure` is not one string as a plain object
        # (sdk/go/common/resource/config/value.go isSecureValue): never a secret
        (
            "\n      - v1:abc\n",
            "gpu-ci:owner: `secure:` holds a list, and Pulumi reads such a map as a plain "
            "object, not a secret; set it with `pulumi config set --secret --path "
            "'gpu-ci:owner'`, which encrypts it",
        ),
        (" {a: b}", "gpu-ci:owner: `secure:` holds a map, and Pulumi reads such a map"),
        (" 12", "gpu-ci:owner: `secure:` holds a number, and Pulumi reads such a map"),
        (" null", "gpu-ci:owner: `secure:` holds a value, and Pulumi reads such a map"),
        # a plain value pasted under secure: no secrets provider decrypts it
        (
            " |\n      -----BEGIN RSA PRIVATE KEY-----\n      MIIE\n"
            "      -----END RSA PRIVATE KEY-----\n",
            "gpu-ci:owner: `secure:` holds no Pulumi ciphertext (a `v1:` passphrase ciphertext "
            "or base64) but what looks like the plain value, which no secrets provider "
            "decrypts; set it with `pulumi config set --secret --path 'gpu-ci:owner'`",
        ),
        (" -----BEGIN-KEY-----", "gpu-ci:owner: `secure:` holds no Pulumi ciphertext"),
        (" my team", "gpu-ci:owner: `secure:` holds no Pulumi ciphertext"),
    ],
)
def test_secure_forms_pulumi_would_not_decrypt_are_refused(
    tmp_path: Path, value: str, message: str
) -> None:
    text = f"config:\n  gpu-ci:owner:\n    secure:{value}"
    with pytest.raises(GpuCiError) as err:
        read_stack_file(project(tmp_path, {"bad": text}), "bad")
    assert str(err.value).startswith(message)
    assert "MIIE" not in str(err.value)


def test_a_secure_beside_other_keys_is_an_object_and_refused(tmp_path: Path) -> None:
    text = "config:\n  gpu-ci:runner:\n    token:\n      secure: v1:a:b\n      other: 1\n"
    with pytest.raises(
        GpuCiError, match=r"^gpu-ci:runner\.token: `secure:` stands beside other keys, and Pulumi"
    ):
        read_stack_file(project(tmp_path, {"bad": text}), "bad")
