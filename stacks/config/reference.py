"""The config reference: every `gpu-ci:` key, its default and its meaning, from the models.

The reference table of docs/configuration.md is this module's output (between the markers
`<!-- config-reference:start -->` and `<!-- config-reference:end -->`), and a test keeps
the two equal, so the reference cannot drift from the code:

    .venv/bin/python -m stacks.config.reference                                # print it
    .venv/bin/python -m stacks.config.reference --write docs/configuration.md  # replace it

Rows come from `StackConfig`'s fields, recursively: a nested model is a row of its own and
one row per field below it (`vm.image.id`), a list of models one per item field
(`arc.scaleSets[].name`), and a discriminated union one row for the tag, then the fields
every variant shares, then each variant's own, marked with it (`host.address` *(ssh)*).
A model met again with nothing of its own to default (a second `tolerations`) is not
expanded twice: its row names the key where its fields are listed.

The meaning is the field's `description`. The default is the model's (a nested model's
default instance supplies the defaults below it), rendered as YAML; "required" when the
field has none. A description may open with the text the default column should show
instead, up to the first "; ": `default: ...` for what an unset optional field means
(`default: the ssh-agent; ...`), or `required ...` for a conditional requirement that a
validator enforces (`required when capacity: vm; ...`). Credentials (`SecretStr`) are
marked "(secret)".
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from core import yaml_text
from stacks.config.annotations import (
    is_secret,
    item_type,
    literals_of,
    models_of,
    same_field,
    tag_field,
)
from stacks.config.stack import StackConfig

START = "<!-- config-reference:start -->"
END = "<!-- config-reference:end -->"
HEADER = "| key | default | meaning |\n|---|---|---|\n"
_PREFIXES = ("default: ", "required")
_PLAIN = re.compile(r"[A-Za-z0-9_./~+$-][^,#{}\[\]&*!|>'\"%@`]*")


@dataclass(frozen=True)
class Row:
    """One line of the table, and the model fields it documents: one, or the same field of
    every member of a union."""

    key: str
    variants: tuple[str, ...]
    default: str
    meaning: str
    fields: tuple[tuple[type[BaseModel], str], ...]

    def markdown(self) -> str:
        key = f"`{self.key}`"
        if self.variants:
            key += f" *({', '.join(self.variants)})*"
        return f"| {key} | {_cell(self.default)} | {_cell(self.meaning)} |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _is_section(info: FieldInfo) -> bool:
    """A field holding a model or a list of models: listed after the plain fields."""
    return bool(models_of(info.annotation)) or item_type(info.annotation) is not None


def _scalar(value: str) -> str:
    """`value` as YAML writes it: plain where the Pulumi CLI reads it back as this text
    (`_PLAIN` has no `,`, so a plain scalar is plain in flow collections too)."""
    plain = (  # `_PLAIN` needs a first character, so "" is quoted
        yaml_text.core_tag(value) == yaml_text.STR
        and _PLAIN.fullmatch(value) is not None
        and ": " not in value
        and not value.endswith(":")
    )
    return value if plain else '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _yaml(value: Any) -> str:
    """A default as compact YAML (flow style)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_defaults=True)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        pairs = (f"{_scalar(str(k))}: {_yaml(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, str):
        return _scalar(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    return str(value)


_UNSET: Any = object()


def _default_of(info: FieldInfo) -> Any:
    """The field's own default (a factory called), or _UNSET when it is required."""
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return _UNSET if info.default is PydanticUndefined else info.default


def _split(description: str) -> tuple[str | None, str]:
    """(default-column text, meaning) of a description (see the module docstring)."""
    if description.startswith(_PREFIXES) and "; " in description:
        head, meaning = description.split("; ", 1)
        return head.removeprefix("default: "), meaning
    return None, description


class _Walker:
    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.expanded: dict[type[BaseModel], str] = {}

    def model(
        self,
        model: type[BaseModel],
        prefix: str,
        instance: BaseModel | None,
        variants: tuple[str, ...],
        names: list[str] | None = None,
        owners: tuple[type[BaseModel], ...] = (),
    ) -> None:
        """Rows for `names` (default: every field) of `model`, plain fields first; `owners`:
        the union members that share these fields (default: `model` alone)."""
        names = list(model.model_fields) if names is None else names
        for name in sorted(names, key=lambda n: _is_section(model.model_fields[n])):
            info = model.model_fields[name]
            value = getattr(instance, name) if instance is not None else _default_of(info)
            fields = tuple((owner, name) for owner in owners or (model,))
            self.field(fields, info, f"{prefix}{name}", value, variants)

    def field(
        self,
        fields: tuple[tuple[type[BaseModel], str], ...],
        info: FieldInfo,
        key: str,
        value: Any,
        variants: tuple[str, ...],
    ) -> None:
        annotation = info.annotation
        shown, meaning = _split(info.description or "")
        if shown is None:
            shown = "required" if value is _UNSET else "none" if value is None else ""
            if not shown:
                shown = f"`{_yaml(value)}`"
        literals = literals_of(annotation)
        if len(literals) > 1 and not any(f"`{v}`" in meaning for v in literals):
            *first, last = [f"`{v}`" for v in literals]
            meaning += f"; one of {', '.join(first)} or {last}"
        if is_secret(annotation):
            meaning = f"(secret) {meaning}"
        nested = models_of(annotation)
        items = item_type(annotation)
        below = models_of(items) if items is not None else nested
        instance = value if isinstance(value, BaseModel) and items is None else None
        again = len(below) == 1 and below[0] in self.expanded and instance is None
        if again:
            meaning += f" (fields as `{self.expanded[below[0]]}`)"
        self.rows.append(Row(key, variants, shown, meaning, fields))
        if not below or again:
            return
        prefix = f"{key}[]." if items is not None else f"{key}."
        if len(below) == 1:
            self.expanded.setdefault(below[0], key + ("[]" if items is not None else ""))
            self.model(below[0], prefix, instance, variants)
        else:
            self.union(below, prefix, variants)

    def union(self, members: list[type[BaseModel]], prefix: str, variants: tuple[str, ...]) -> None:
        tag = tag_field(members)
        tags = [literals_of(m.model_fields[tag].annotation)[0] for m in members]
        choices = "; ".join(
            f"`{value}`: {member.model_fields[tag].description or ''}"
            for value, member in zip(tags, members, strict=True)
        )
        tagged = tuple((member, tag) for member in members)
        self.rows.append(Row(f"{prefix}{tag}", variants, "required", choices, tagged))
        shared = [n for n in members[0].model_fields if n != tag and same_field(members, n)]
        self.model(members[0], prefix, None, variants, shared, tuple(members))
        for value, member in zip(tags, members, strict=True):
            own = [n for n in member.model_fields if n != tag and n not in shared]
            self.model(member, prefix, None, (*variants, value), own)


def reference_rows() -> list[Row]:
    """Every row of the reference, in table order."""
    walker = _Walker()
    walker.model(StackConfig, "", None, ())
    return walker.rows


def render_reference() -> str:
    """The markdown table of every `gpu-ci:` key."""
    return HEADER + "".join(row.markdown() + "\n" for row in reference_rows())


def _between(text: str) -> tuple[int, int]:
    """Where the table starts and ends: after the start marker, at the end marker."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {START} ... {END} markers")
    return start + len(START), end


def readme_copy(text: str) -> str:
    """The table a page (docs/configuration.md) holds between the markers (without their
    line breaks)."""
    start, end = _between(text)
    return text[start:end].strip("\n") + "\n"


def write(path: Path) -> bool:
    """Replace the table between the markers in `path`; whether it changed."""
    text = path.read_text()
    start, end = _between(text)
    new = text[:start] + "\n" + render_reference() + text[end:]
    if new != text:
        path.write_text(new)
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stacks.config.reference",
        description="Print the gpu-ci config reference (a markdown table).",
    )
    parser.add_argument(
        "--write", type=Path, metavar="FILE", help=f"replace the table between {START} and {END}"
    )
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(render_reference())
        return 0
    try:
        changed = write(args.write)
    except (OSError, ValueError) as err:
        print(f"error: {args.write}: {err}", file=sys.stderr)
        return 2
    print(f"{args.write}: {'updated' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
