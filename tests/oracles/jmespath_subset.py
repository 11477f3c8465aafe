"""A JMESPath evaluator for the expressions Chainsaw assertions use (an oracle for tests).

Chainsaw evaluates `(expr)` keys and values with JMESPath Community Edition
(github.com/jmespath-community/go-jmespath, through kyverno-json `pkg/core/compilers/jp`).
This is the JMESPath specification (jmespath.org/specification.html) for: identifiers
(plain and "quoted"), sub-expressions, index, list and object wildcards, flatten, filter
projections, pipes, `||`, `&&`, `!`, comparisons (ordering only between numbers, else
null), `@`, raw strings, JSON literals, multi-select lists and a few functions. The parser
follows the Pratt parser of the reference implementation (jmespath/jmespath.py `parser.py`,
its binding powers). Anything else raises `JmesPathUnsupportedError`, so a test meeting an
expression outside this subset fails instead of passing.
"""

from __future__ import annotations

import json
import re
from typing import Any

Node = tuple[Any, ...]


class JmesPathUnsupportedError(Exception):
    """An expression outside the subset (or not JMESPath)."""


class JmesPathTypeError(Exception):
    """A function given an argument of the wrong type: an error in JMESPath, which makes
    kyverno-json return an internal error and Chainsaw fail the operation."""


_BP = {
    "eof": 0, "ident": 0, "literal": 0, "rbracket": 0, "rparen": 0, "comma": 0, "current": 0,
    "number": 0, "colon": 0, "pipe": 1, "or": 2, "and": 3, "cmp": 5, "flatten": 9, "star": 20,
    "filter": 21, "dot": 40, "not": 45, "lbracket": 55, "lparen": 60,
}  # fmt: skip
_TOKEN = re.compile(
    r"\s*(?:(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<quoted>\"(?:\\.|[^\"\\])*\")"
    r"|(?P<raw>'(?:\\'|[^'])*')|(?P<literal>`(?:\\`|[^`])*`)|(?P<number>-?\d+)"
    r"|(?P<op>\[\?|\[\]|\|\||&&|==|!=|<=|>=|[\[\]().,|*@<>!:]))"
)
_OPS = {
    "[?": "filter", "[]": "flatten", "||": "or", "&&": "and", "|": "pipe", "[": "lbracket",
    "]": "rbracket", "(": "lparen", ")": "rparen", ".": "dot", ",": "comma", "*": "star",
    "@": "current", "!": "not", ":": "colon",
}  # fmt: skip


def _tokens(text: str) -> list[tuple[str, Any]]:
    out, pos = [], 0
    while pos < len(text.rstrip()):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise JmesPathUnsupportedError(f"cannot read {text[pos:]!r} in {text!r}")
        pos = match.end()
        kind = match.lastgroup
        value = match.group(kind or "")
        if kind == "quoted":
            out.append(("ident", json.loads(value)))
        elif kind == "raw":
            out.append(("literal", value[1:-1].replace("\\'", "'")))
        elif kind == "literal":
            out.append(("literal", json.loads(value[1:-1].replace("\\`", "`"))))
        elif kind == "number":
            out.append(("number", int(value)))
        elif kind == "ident":
            out.append(("ident", value))
        elif value in ("==", "!=", "<", "<=", ">", ">="):
            out.append(("cmp", value))
        else:
            out.append((_OPS[value], value))
    return [*out, ("eof", None)]


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens, self.i, self.text = _tokens(text), 0, text

    def peek(self, ahead: int = 0) -> str:
        return self.tokens[self.i + ahead][0]

    def take(self, kind: str | None = None) -> tuple[str, Any]:
        token = self.tokens[self.i]
        if kind is not None and token[0] != kind:
            raise JmesPathUnsupportedError(f"expected {kind}, found {token[0]} in {self.text!r}")
        self.i += 1
        return token

    def expression(self, bp: int = 0) -> Node:
        left = self.nud(self.take())
        while bp < _BP[self.peek()]:
            left = self.led(self.take(), left)
        return left

    def nud(self, token: tuple[str, Any]) -> Node:  # noqa: PLR0911 (one return per form)
        kind, value = token
        if kind == "ident":
            if self.peek() == "lparen":
                return self.function(value)
            return ("field", value)
        if kind == "literal":
            return ("literal", value)
        if kind == "current":
            return ("current",)
        if kind == "not":
            return ("not", self.expression(_BP["not"]))
        if kind == "lparen":
            inner = self.expression()
            self.take("rparen")
            return inner
        if kind == "star":
            return ("values", ("current",), self.projection_rhs(_BP["star"]))
        if kind == "filter":
            return self.filter(("current",))
        if kind == "flatten":
            return ("project", ("flatten", ("current",)), self.projection_rhs(_BP["flatten"]))
        if kind == "lbracket":
            if self.peek() == "number":
                return self.index(("current",))
            if self.peek() == "star" and self.peek(1) == "rbracket":
                self.i += 2
                return ("project", ("current",), self.projection_rhs(_BP["star"]))
            return self.multi_select()
        raise JmesPathUnsupportedError(f"unexpected {kind} in {self.text!r}")

    def led(self, token: tuple[str, Any], left: Node) -> Node:  # noqa: PLR0911 (per form)
        kind, value = token
        if kind == "dot":
            if self.peek() == "star":
                self.take()
                return ("values", left, self.projection_rhs(_BP["star"]))
            return ("sub", left, self.dot_rhs())
        if kind == "pipe":
            return ("pipe", left, self.expression(_BP["pipe"]))
        if kind in ("or", "and"):
            return (kind, left, self.expression(_BP[kind]))
        if kind == "cmp":
            return ("cmp", value, left, self.expression(_BP["cmp"]))
        if kind == "flatten":
            return ("project", ("flatten", left), self.projection_rhs(_BP["flatten"]))
        if kind == "filter":
            return self.filter(left)
        if kind == "lbracket":
            if self.peek() == "number":
                return self.index(left)
            self.take("star")
            self.take("rbracket")
            return ("project", left, self.projection_rhs(_BP["star"]))
        raise JmesPathUnsupportedError(f"unexpected {kind} after an expression in {self.text!r}")

    def dot_rhs(self) -> Node:
        if self.peek() == "lbracket":
            self.take()
            return self.multi_select()
        return self.expression(_BP["dot"])

    def projection_rhs(self, bp: int) -> Node:
        if _BP[self.peek()] < 10:
            return ("current",)
        if self.peek() in ("lbracket", "filter"):
            return self.expression(bp)
        self.take("dot")
        return self.dot_rhs()

    def filter(self, left: Node) -> Node:
        condition = self.expression()
        self.take("rbracket")
        return ("filter", left, condition, self.projection_rhs(_BP["filter"]))

    def index(self, left: Node) -> Node:
        number = self.take("number")[1]
        self.take("rbracket")
        return ("index", left, number)

    def multi_select(self) -> Node:
        items = [self.expression()]
        while self.peek() == "comma":
            self.take()
            items.append(self.expression())
        self.take("rbracket")
        return ("list", items)

    def function(self, name: str) -> Node:
        self.take("lparen")
        args: list[Node] = []
        while self.peek() != "rparen":
            args.append(self.expression())
            if self.peek() == "comma":
                self.take()
        self.take("rparen")
        return ("call", name, args)


def truthy(value: Any) -> bool:
    """JMESPath truthiness: false, null, "", [], {} are false."""
    return not (value is None or value is False or value in ("", [], {}))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _compare(op: str, a: Any, b: Any) -> Any:
    if op in ("==", "!="):
        same = (type(a) is type(b) and a == b) or (_number(a) and _number(b) and a == b)
        return same if op == "==" else not same
    if not (_number(a) and _number(b)):
        return None
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _call(name: str, args: list[Any]) -> Any:  # noqa: PLR0911 (one return per function)
    if name == "length" and isinstance(args[0], str | list | dict):
        return len(args[0])
    if name == "to_number":
        value = args[0]
        if _number(value):
            return value
        try:
            parsed = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            return None
        return parsed if _number(parsed) else None
    if name == "contains" and isinstance(args[0], str | list):
        return args[1] in args[0]
    if name in ("starts_with", "ends_with") and all(isinstance(a, str) for a in args):
        return args[0].startswith(args[1]) if name == "starts_with" else args[0].endswith(args[1])
    if name == "keys" and isinstance(args[0], dict):
        return list(args[0])
    if name == "values" and isinstance(args[0], dict):
        return list(args[0].values())
    if name == "not_null":
        return next((a for a in args if a is not None), None)
    if name == "sum" and isinstance(args[0], list) and all(_number(a) for a in args[0]):
        return sum(args[0])
    if name in ("length", "contains", "starts_with", "ends_with", "keys", "values", "sum"):
        raise JmesPathTypeError(f"invalid type for {name}: {args!r}")
    raise JmesPathUnsupportedError(f"function {name} is not supported")


def _eval(node: Node, value: Any) -> Any:  # noqa: PLR0911, PLR0912 (one return per node)
    kind = node[0]
    if kind == "field":
        return value.get(node[1]) if isinstance(value, dict) else None
    if kind == "current":
        return value
    if kind == "literal":
        return node[1]
    if kind == "not":
        return not truthy(_eval(node[1], value))
    if kind == "sub":
        left = _eval(node[1], value)
        return None if left is None else _eval(node[2], left)
    if kind == "pipe":
        return _eval(node[2], _eval(node[1], value))
    if kind == "or":
        left = _eval(node[1], value)
        return left if truthy(left) else _eval(node[2], value)
    if kind == "and":
        left = _eval(node[1], value)
        return _eval(node[2], value) if truthy(left) else left
    if kind == "cmp":
        return _compare(node[1], _eval(node[2], value), _eval(node[3], value))
    if kind == "index":
        left = _eval(node[1], value)
        inside = isinstance(left, list) and -len(left) <= node[2] < len(left)
        return left[node[2]] if inside else None
    if kind == "flatten":
        left = _eval(node[1], value)
        if not isinstance(left, list):
            return None
        return [x for item in left for x in (item if isinstance(item, list) else [item])]
    if kind in ("project", "values", "filter"):
        return _project(node, value)
    if kind == "list":
        return None if value is None else [_eval(n, value) for n in node[1]]
    if kind == "call":
        return _call(node[1], [_eval(a, value) for a in node[2]])
    raise JmesPathUnsupportedError(f"node {kind}")


def _project(node: Node, value: Any) -> Any:
    left = _eval(node[1], value)
    if node[0] == "values":
        items = list(left.values()) if isinstance(left, dict) else None
    else:
        items = left if isinstance(left, list) else None
    if items is None:
        return None
    if node[0] == "filter":
        items = [item for item in items if truthy(_eval(node[2], item))]
    rhs = node[-1]
    return [r for r in (_eval(rhs, item) for item in items) if r is not None]


def search(expression: str, data: Any) -> Any:
    """`expression` evaluated against `data`."""
    parser = _Parser(expression)
    tree = parser.expression()
    parser.take("eof")
    return _eval(tree, data)
