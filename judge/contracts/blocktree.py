"""Rebuild the tree of one fkc block from either spelling, with a line number for every key.

*Indented* blocks nest by indentation, as YAML does. *Flattened* blocks (every line at column 0)
nest by the schema: a key belongs to the innermost open mapping that admits it and ``- key:``
opens a new list item. Plain YAML parsing of a flattened block would silently merge duplicate keys
and misplace nesting, so PyYAML only ever sees one value at a time (a scalar, a flow collection,
or a leaf value with its continuation lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import yaml

from judge.contracts.errors import format_path
from judge.contracts.schema import Node

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s+|$)(.*)$")


class BlockSyntaxError(Exception):
    """A structural problem; carries the file line and field path (made a ContractError later)."""

    def __init__(self, line: int, path: tuple, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.path = path
        self.message = message


@dataclass
class ParsedTree:
    tree: dict
    # field path -> file line of the key or list item; keys inside a flow value are not listed
    # (they share the line of the key that holds the value).
    lines: dict[tuple, int]
    spelling: str  # "flattened" | "indented"
    unknown: list[tuple[tuple, int]] = field(default_factory=list)  # keys the schema lacks


@dataclass
class _Frame:
    node: Node
    container: dict | list
    path: tuple
    indent: int | None  # column of keys (maps) or dashes (lists); None until the first child
    owner_indent: int  # column of the key that opened this container (-1 for the root)


class _UniqueKeyLoader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):
    """Safe loader that refuses duplicate keys inside flow mappings."""


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, (str, int, float, bool, type(None))):
            raise yaml.constructor.ConstructorError(
                None, None, f"a mapping key must be a scalar, got {key!r}", key_node.start_mark)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


@lru_cache(maxsize=4096)
def _load_cached(text: str):
    return yaml.load(text, Loader=_UniqueKeyLoader)


def _fresh(value):
    """A private copy of a cached parse result (the tree is mutated while it is built)."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def load_value(text: str, line: int, path: tuple, *, inline: bool = True):
    """Parse one value. ``inline``: the text follows ``key:`` (or ``- ``) on its line, where YAML
    allows a scalar or a flow collection but no block mapping or sequence (``a: b: c``)."""
    try:
        value = _load_cached(text)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise BlockSyntaxError(line, path, f"bad YAML in {text.strip()!r}: {problem}") from None
    head = text.lstrip()[:1]
    if inline and ((isinstance(value, dict) and head != "{") or
                   (isinstance(value, list) and head != "[")):
        raise BlockSyntaxError(line, path, f"bad YAML in {text.strip()!r}: a block "
                                           "collection cannot start on the key's line")
    return _fresh(value)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def parse_block(lines: tuple[str, ...], first_line: int, schema: Node) -> ParsedTree:
    """Parse one block (or front matter). Raises ``BlockSyntaxError`` on the first problem."""
    content = [_is_content(line) for line in lines]
    indents = [_indent(line) for line in lines]
    for offset, line in enumerate(lines):
        if content[offset] and line[indents[offset]] == "\t":
            raise BlockSyntaxError(first_line + offset, (), "tab in indentation (use spaces)")
    margin = min((ind for ind, c in zip(indents, content, strict=True) if c), default=0)
    if margin:
        lines = tuple(line[margin:] for line in lines)
        indents = [max(0, ind - margin) for ind in indents]
    indented = any(c and ind for ind, c in zip(indents, content, strict=True))
    return _Parser(lines, first_line, schema, indented, content, indents).run()


class _Parser:
    def __init__(self, lines, first_line, schema, indented, content, indents):
        self.lines = lines
        self.content = content
        self.indents = indents
        self.first_line = first_line
        self.indented = indented
        self.root: dict = {}
        self.stack = [_Frame(schema, self.root, (), 0, -1)]
        self.line_of: dict[tuple, int] = {}
        self.unknown: list[tuple[tuple, int]] = []

    def run(self) -> ParsedTree:
        i = 0
        n = len(self.lines)
        while i < n:
            if not self.content[i]:
                i += 1
                continue
            raw = self.lines[i]
            lineno = self.first_line + i
            col = self.indents[i]
            text = raw[col:]
            if text.startswith("- ") or text.rstrip() == "-":
                i = self._dash(i, lineno, col, text)
            else:
                i = self._key_line(i, lineno, col, text)
        spelling = "indented" if self.indented else "flattened"
        return ParsedTree(self.root, self.line_of, spelling, self.unknown)

    # -- structure -------------------------------------------------------------------------

    def _key_line(self, i, lineno, col, text, *, item_frame: _Frame | None = None):
        match = _KEY.match(text)
        if match is None:
            where = self.stack[-1].path
            raise BlockSyntaxError(lineno, where, f"expected 'key: value', got {text.strip()!r}")
        key, rest = match.group(1), match.group(2)
        empty = not rest.strip() or rest.lstrip().startswith("#")
        end = i + 1
        value_text = rest
        if self.indented and not empty:
            end = self._continuation_end(i, col)
            if end > i + 1:
                value_text = rest + "\n" + "\n".join(line[col:] for line in self.lines[i + 1:end])
        # Only "is it a flow mapping?" matters for where the key belongs (op_params.fields).
        probe = {} if rest.lstrip().startswith("{") else None
        frame = item_frame or self._owner(key, probe, lineno, col)
        path = frame.path + (key,)
        value = None if empty else load_value(value_text, lineno, path)
        if key in frame.container:
            raise BlockSyntaxError(lineno, path, f"duplicate key {key!r} (first at line "
                                                 f"{self.line_of.get(path, '?')})")
        node = frame.node.child(key)
        if node is None:
            self.unknown.append((path, lineno))
        self.line_of[path] = lineno
        if not empty:
            frame.container[key] = value
            return end
        if node is not None and node.is_map:
            child: dict | list = {}
        elif node is not None and node.is_list:
            child = []
        else:
            # A leaf with an empty value: null, or (indented) a block collection below it.
            end = self._leaf_block_end(i, col) if self.indented else i + 1
            if end > i + 1:
                block = "\n".join(line[col:] for line in self.lines[i + 1:end])
                value = load_value(f"{key}:\n{block}", lineno, path, inline=False)[key]
            frame.container[key] = value
            return end
        frame.container[key] = child
        self.stack.append(_Frame(node, child, path, None, col))
        return end

    def _dash(self, i, lineno, col, text):
        body = text[1:].lstrip(" ")
        body_col = col + (len(text) - len(body))
        lst = self._owner_list(lineno, col, body)
        index = len(lst.container)
        path = lst.path + (index,)
        self.line_of[path] = lineno
        item = lst.node.item
        if body and _KEY.match(body) and item is not None and item.is_map:
            entry: dict = {}
            lst.container.append(entry)
            frame = _Frame(item, entry, path, body_col if self.indented else 0, col)
            self.stack.append(frame)
            return self._key_line(i, lineno, body_col, body, item_frame=frame)
        if not body:
            entry = {}
            lst.container.append(entry)
            self.stack.append(_Frame(item or Node("map"), entry, path, None, col))
            return i + 1
        end = self._continuation_end(i, col) if self.indented else i + 1
        value_text = body + "".join("\n" + line[body_col:] for line in self.lines[i + 1:end])
        value = load_value(value_text, lineno, path)
        lst.container.append(value)
        return end

    def _owner(self, key, probe, lineno, col) -> _Frame:
        """The open mapping that ``key`` belongs to; pops the frames it closes."""
        if not self.indented:
            for depth in range(len(self.stack) - 1, -1, -1):
                frame = self.stack[depth]
                if frame.node.admits(key, probe, flattened=True):
                    del self.stack[depth + 1:]
                    return frame
            # Unknown everywhere: it stays in the innermost open mapping (lint warns).
            while not isinstance(self.stack[-1].container, dict):
                self.stack.pop()
            return self.stack[-1]
        popped: list[_Frame] = []
        while True:
            frame = self.stack[-1]
            if frame.indent is None:
                if isinstance(frame.container, dict) and col > frame.owner_indent:
                    frame.indent = col
                    break
                popped.append(self.stack.pop())
                continue
            if isinstance(frame.container, list) or col < frame.indent:
                if len(self.stack) == 1:
                    break
                popped.append(self.stack.pop())
                continue
            break
        frame = self.stack[-1]
        if col != frame.indent:
            raise BlockSyntaxError(lineno, frame.path + (key,),
                                   f"key {key!r} at column {col + 1}: expected column "
                                   f"{frame.indent + 1} (inconsistent indentation)")
        if not frame.node.admits(key, probe, flattened=False):
            for inner in popped:
                if inner.node.admits(key, probe, flattened=True):
                    raise BlockSyntaxError(
                        lineno, inner.path + (key,),
                        f"key {key!r} at column {col + 1} belongs to "
                        f"{format_path(inner.path) or 'the block'} by the schema: this block "
                        "mixes the indented and the flattened spelling")
        return frame

    def _owner_list(self, lineno, col, body) -> _Frame:
        if not self.indented:
            key = _KEY.match(body)
            for depth in range(len(self.stack) - 1, -1, -1):
                frame = self.stack[depth]
                if frame.node.is_list:
                    item = frame.node.item
                    if key and item is not None and item.is_map and not item.admits(
                            key.group(1), {}, flattened=False):
                        continue
                    del self.stack[depth + 1:]
                    return frame
            raise BlockSyntaxError(lineno, self.stack[-1].path,
                                   f"list item {body.strip()!r} but no list is open here")
        while True:
            frame = self.stack[-1]
            if frame.indent is None:
                if isinstance(frame.container, list) and col >= frame.owner_indent:
                    frame.indent = col
                    return frame
            elif isinstance(frame.container, list) and col == frame.indent:
                return frame
            elif isinstance(frame.container, list) and col > frame.indent:
                break
            elif isinstance(frame.container, dict) and col >= frame.indent:
                break
            if len(self.stack) == 1:
                break
            self.stack.pop()
        raise BlockSyntaxError(lineno, self.stack[-1].path,
                               f"list item {body.strip()!r} at column {col + 1} does not fit "
                               "the indentation of any open list")

    # -- values ----------------------------------------------------------------------------

    def _continuation_end(self, i, col) -> int:
        """Index after the lines that continue a value begun on line ``i`` (indented deeper)."""
        end = i + 1
        j = i + 1
        while j < len(self.lines):
            if not self.lines[j].strip():
                j += 1
                continue
            if self.indents[j] <= col:
                break
            j += 1
            end = j
        return end

    def _leaf_block_end(self, i, col) -> int:
        """Index after a block collection under an empty leaf key (deeper, or ``-`` at col)."""
        end = i + 1
        j = i + 1
        while j < len(self.lines):
            if not self.content[j]:
                j += 1
                continue
            ind = self.indents[j]
            if ind > col or (ind == col and self.lines[j].startswith("- ", ind)):
                j += 1
                end = j
                continue
            break
        return end
