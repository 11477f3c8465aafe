"""A YAML file's bytes as the text yaml.v3 reads, and a YAML error as one line.

Shared by every reader of YAML (`core.read_yaml`): the Pulumi CLI's decoding of a stack
file (UTF-8 with its BOM dropped, or UTF-16 with a BOM; NUL bytes refused) and the message
that names the file, line and column instead of `in "<unicode string>"`.
"""

from __future__ import annotations

import codecs

import yaml

from core.errors import GpuCiError


class YamlRefusedError(GpuCiError):
    """A document the careful reader refuses; one line naming the file and the fix."""


def decode(name: str, raw: bytes) -> str:
    """The file's text: UTF-8 (a BOM dropped, as the CLI drops it), or UTF-16 with a BOM
    (which yaml.v3 reads too)."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError as err:
            raise YamlRefusedError(
                f"{name}: the file starts as UTF-16 but is not UTF-16 "
                f"(line {_raw_line(raw, err.start)}); save it as UTF-8"
            ) from None
        raw = text.encode("utf-8")  # UTF-32 passes as UTF-16 with NULs: refused below
    raw = raw.removeprefix(codecs.BOM_UTF8)
    nul = raw.find(b"\0")
    if nul >= 0:
        raise YamlRefusedError(
            f"{name}: the file holds NUL bytes, as UTF-16 without a byte-order mark does "
            f"(line {_raw_line(raw, nul)}); save it as UTF-8"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise YamlRefusedError(
            f"{name}: byte 0x{raw[err.start]:02x} is not UTF-8 (line "
            f"{_raw_line(raw, err.start)}); save the file as UTF-8"
        ) from None


def _raw_line(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def syntax_message(name: str, text: str, err: yaml.YAMLError) -> str:
    """One line: what is wrong, where, and the fix; never `in "<unicode string>"`."""
    if isinstance(err, yaml.reader.ReaderError):
        line = text.count("\n", 0, err.position) + 1
        code = ord(err.character) if isinstance(err.character, str) else err.character
        escape = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        return (
            f"{name}: character U+{code:04X} is not allowed in YAML (line {line}); "
            f'remove it, or write it as "{escape}" in a double-quoted string'
        )
    if isinstance(err, yaml.MarkedYAMLError):
        parts = []
        if err.context:
            at = f" (line {err.context_mark.line + 1})" if err.context_mark else ""
            parts.append(f"{err.context}{at}")
        if err.problem:
            at = ""
            if err.problem_mark:
                at = f" (line {err.problem_mark.line + 1}, column {err.problem_mark.column + 1})"
            parts.append(f"{err.problem}{at}")
        what = ", ".join(parts) or str(err).splitlines()[0]
        return f"{name}: not valid YAML: {what}; fix the YAML there"
    return f"{name}: not valid YAML: {' '.join(str(err).split())}"
