"""Just enough of Go's text/template (plus the sprig functions nvkind's templates call)
to render nvkind's upstream config templates in a test, offline.

Supported: `{{- ... -}}` trimming; `if`, `range [$v :=]`, `end`; `$v := ...` and
`$v = ...`; pipelines with `|`; `$`, `$.key`, `.key`, `.`, `$var`, string and integer
literals; functions hasKey, div, mul, add, int, until, untilStep, list, kindIs, not and
nvkind's numGPUs. Anything else raises, so an upstream template using more fails loudly.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.DOTALL)
_ASSIGN = re.compile(r"^(\$\w+)\s*(:=|=)\s*(.+)$", re.DOTALL)
_RANGE = re.compile(r"^range\s+(?:(\$\w+)\s*:=\s*)?(.+)$", re.DOTALL)

NO_VALUE = "<no value>"


@dataclass
class _Node:
    kind: str  # text | out | if | range | assign
    text: str = ""
    var: str = ""
    declare: bool = False
    body: list[_Node] = field(default_factory=list)


def _tokens(source: str) -> Iterator[tuple[str, str]]:
    """("text", s) and ("action", s) pieces with Go's whitespace trimming applied."""
    pieces: list[list[str]] = []
    pos = 0
    trim_next = False
    for match in _ACTION.finditer(source):
        text = source[pos : match.start()]
        if trim_next:
            text = text.lstrip(" \t\r\n")
        if match.group(1):
            text = text.rstrip(" \t\r\n")
        pieces += [["text", text], ["action", match.group(2).strip()]]
        trim_next = bool(match.group(3))
        pos = match.end()
    tail = source[pos:]
    pieces.append(["text", tail.lstrip(" \t\r\n") if trim_next else tail])
    yield from ((kind, value) for kind, value in pieces)


def _parse(source: str) -> list[_Node]:
    root: list[_Node] = []
    stack = [root]
    for kind, value in _tokens(source):
        if kind == "text":
            if value:
                stack[-1].append(_Node("text", value))
            continue
        if value == "end":
            stack.pop()
            continue
        if value.startswith("if "):
            node = _Node("if", value[3:])
        elif value.startswith("range "):
            match = _RANGE.match(value)
            assert match is not None
            node = _Node("range", match.group(2), var=match.group(1) or "")
        elif (match := _ASSIGN.match(value)) is not None:
            stack[-1].append(
                _Node("assign", match.group(3), var=match.group(1), declare=match.group(2) == ":=")
            )
            continue
        elif value.split()[0] in ("else", "with", "define", "template", "block"):
            raise NotImplementedError(f"template action not supported: {value!r}")
        else:
            stack[-1].append(_Node("out", value))
            continue
        stack[-1].append(node)
        stack.append(node.body)
    assert len(stack) == 1, "unbalanced {{ end }}"
    return root


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (isinstance(value, list | dict) and not value)


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "slice"
    if isinstance(value, dict):
        return "map"
    return "invalid"


def _until_step(start: int, stop: int, step: int) -> list[int]:
    return list(range(start, stop, step))


class Template:
    """A parsed template; `render(values, num_gpus)` executes it."""

    def __init__(self, source: str) -> None:
        self.nodes = _parse(source)

    def render(self, values: dict[str, Any], num_gpus: int) -> str:
        functions: dict[str, Callable[..., Any]] = {
            "hasKey": lambda m, k: isinstance(m, dict) and k in m,
            "div": lambda a, b: int(a) // int(b),
            "mul": lambda a, b: int(a) * int(b),
            "add": lambda a, b: int(a) + int(b),
            "int": int,
            "until": lambda n: list(range(int(n))),
            "untilStep": _until_step,
            "list": lambda *items: list(items),
            "kindIs": lambda kind, v: _kind_of(v) == kind,
            "not": lambda v: not _truthy(v),
            "numGPUs": lambda: num_gpus,
        }
        out: list[str] = []
        self._run(self.nodes, values, values, [{}], functions, out)
        return "".join(out)

    def _run(
        self,
        nodes: list[_Node],
        root: Any,
        dot: Any,
        scopes: list[dict[str, Any]],
        functions: dict[str, Callable[..., Any]],
        out: list[str],
    ) -> None:
        def evaluate(pipeline: str) -> Any:
            return self._pipeline(pipeline, root, dot, scopes, functions)

        for node in nodes:
            if node.kind == "text":
                out.append(node.text)
            elif node.kind == "out":
                out.append(_show(evaluate(node.text)))
            elif node.kind == "assign":
                value = evaluate(node.text)
                if node.declare:
                    scopes[-1][node.var] = value
                else:
                    next(s for s in reversed(scopes) if node.var in s)[node.var] = value
            elif node.kind == "if":
                if _truthy(evaluate(node.text)):
                    self._run(node.body, root, dot, [*scopes, {}], functions, out)
            elif node.kind == "range":
                for item in evaluate(node.text) or ():
                    scope = {node.var: item} if node.var else {}
                    self._run(node.body, root, item, [*scopes, scope], functions, out)

    def _pipeline(
        self,
        pipeline: str,
        root: Any,
        dot: Any,
        scopes: list[dict[str, Any]],
        functions: dict[str, Callable[..., Any]],
    ) -> Any:
        def operand(token: Any) -> Any:  # noqa: PLR0911 (one return per operand form)
            if isinstance(token, list):  # a parenthesized pipeline
                return run(token)
            if token.startswith('"'):
                return token[1:-1]
            if re.fullmatch(r"-?[0-9]+", token):
                return int(token)
            if token == "$":
                return root
            if token == ".":
                return dot
            if token.startswith("$"):
                name, _, path = token.partition(".")
                base = root if name == "$" else next(s for s in reversed(scopes) if name in s)[name]
                return _walk(base, path)
            if token.startswith("."):
                return _walk(dot, token[1:])
            if token in functions:
                return functions[token]()
            raise NotImplementedError(f"operand not supported: {token!r}")

        def run(tokens: list[Any]) -> Any:
            value: Any = None
            piped = False
            commands: list[list[Any]] = [[]]
            for token in tokens:
                if token == "|":
                    commands.append([])
                else:
                    commands[-1].append(token)
            for words in commands:
                head = words[0]
                if isinstance(head, str) and head in functions:
                    args = [operand(w) for w in words[1:]] + ([value] if piped else [])
                    value = functions[head](*args)
                else:
                    assert len(words) == 1 and not piped, f"unsupported command {words!r}"
                    value = operand(head)
                piped = True
            return value

        return run(_group(_lex(pipeline)))


_LEX = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[()|]|[^\s()|]+)')


def _lex(text: str) -> list[str]:
    tokens = []
    pos = 0
    while pos < len(text):
        match = _LEX.match(text, pos)
        if match is None:
            if text[pos:].strip():
                raise NotImplementedError(f"cannot lex {text[pos:]!r}")
            break
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


def _group(tokens: list[str]) -> list[Any]:
    """Nest parenthesized sub-pipelines as lists."""
    stack: list[list[Any]] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(token)
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def _walk(value: Any, path: str) -> Any:
    for key in filter(None, path.split(".")):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _show(value: Any) -> str:
    if value is None:
        return NO_VALUE
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
