"""Cost expressions: a tiny safe arithmetic parser (never ``eval``).

Grammar: expr := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
factor := number | variable | '(' expr ')' | '-' factor. Variables are the cost model's element
counts and sizes. Trees are nested tuples: ("num", v) | ("var", name) | ("neg", a) | (op, a, b).
"""

from __future__ import annotations

import re

VARIABLES = ("n", "n_in", "n_out", "dtype_bytes", "in_elems", "out_elems")

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)|(.))")


class CostSyntaxError(ValueError):
    pass


def parse(text: str) -> tuple:
    tokens = _tokenize(text)
    tree, pos = _expr(tokens, 0, text)
    if pos != len(tokens):
        raise CostSyntaxError(f"unexpected {tokens[pos][1]!r} in cost expression {text!r}")
    return tree


def evaluate(expr, **variables: float) -> float:
    """Value of ``expr`` (a ``CostExpr``, a parsed tree or a text) for the given variables."""
    tree = getattr(expr, "tree", expr)
    if isinstance(tree, str):
        tree = parse(tree)
    return _eval(tree, variables)


def _tokenize(text: str) -> list[tuple[str, object]]:
    tokens: list[tuple[str, object]] = []
    for match in _TOKEN.finditer(text):
        number, name, other = match.groups()
        if number is not None:
            value = float(number)
            tokens.append(("num", int(value) if value.is_integer() and "." not in number
                           and "e" not in number.lower() else value))
        elif name is not None:
            if name not in VARIABLES:
                raise CostSyntaxError(f"unknown variable {name!r} in cost expression {text!r} "
                                      f"(known: {', '.join(VARIABLES)})")
            tokens.append(("var", name))
        elif other is not None and other.strip():
            if other not in "+-*/()":
                raise CostSyntaxError(f"unexpected {other!r} in cost expression {text!r}")
            tokens.append(("op", other))
    if not tokens:
        raise CostSyntaxError("empty cost expression")
    return tokens


def _expr(tokens, pos, text):
    return _left_fold(tokens, pos, text, ("+", "-"), _term)


def _term(tokens, pos, text):
    return _left_fold(tokens, pos, text, ("*", "/"), _factor)


def _left_fold(tokens, pos, text, ops, operand):
    """``operand (op operand)*`` for the operators ``ops``, folded to the left."""
    left, pos = operand(tokens, pos, text)
    while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] in ops:
        op = tokens[pos][1]
        right, pos = operand(tokens, pos + 1, text)
        left = (op, left, right)
    return left, pos


def _factor(tokens, pos, text):
    if pos >= len(tokens):
        raise CostSyntaxError(f"cost expression {text!r} ends early")
    kind, value = tokens[pos]
    if kind in ("num", "var"):
        return (kind, value), pos + 1
    if value == "-":
        inner, pos = _factor(tokens, pos + 1, text)
        return ("neg", inner), pos
    if value == "(":
        inner, pos = _expr(tokens, pos + 1, text)
        if pos >= len(tokens) or tokens[pos] != ("op", ")"):
            raise CostSyntaxError(f"missing ')' in cost expression {text!r}")
        return inner, pos + 1
    raise CostSyntaxError(f"unexpected {value!r} in cost expression {text!r}")


def _eval(tree, variables):
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "var":
        try:
            return variables[tree[1]]
        except KeyError:
            raise KeyError(f"cost variable {tree[1]!r} has no value") from None
    if kind == "neg":
        return -_eval(tree[1], variables)
    a, b = _eval(tree[1], variables), _eval(tree[2], variables)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    return a / b


def cost_class_work(cls: str | None) -> str | None:
    """What a block's ``cost.class`` is measured against: "flops" for a compute class,
    "bytes_moved" for a bandwidth class, None for a class the vocabulary does not list
    (``vocabulary.toml``: the classes are the contract's words, kept as data)."""
    from judge.contracts.semantics import vocabulary_file

    classes = vocabulary_file()["cost_classes"]
    if cls in classes["compute"]:
        return "flops"
    if cls in classes["bandwidth"]:
        return "bytes_moved"
    return None
