#!/usr/bin/env python3
"""Import circles of one Rust crate.

Usage: scripts/import-cycles.py <crate>/src [--graph] [--max N]

Reads every .rs file under the folder, finds the crate paths each one names
(`use crate::a::b`, `use crate::{a, b::c}`, `super::x`, `self::y`, a child
module's or an imported module's `m::f()`, and inline `crate::a::f()`), maps
each path to the file that defines the item, following `pub use`
re-exports (so `crate::Money` re-exported by lib.rs leads to money.rs, not to
lib.rs), and prints every strongly connected component of more than N files
(2 by default): a circle a reader cannot enter at one end.

`mod x;` declarations are the module tree, not imports, and are not counted;
a file's own `mod tests { use super::*; }` points into the same file. Test
modules count like any code. With --graph it also prints each file's
imports. Exit status 1 when a circle of more than N files exists.
"""

import argparse
import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# Comments, strings and character literals in one left-to-right pass, so a
# `//` inside a string ("http://…") is no comment and a quote inside a
# comment opens no string.
LITERAL = re.compile(
    r'(?P<raw>\br(?P<hashes>#*)")'  # a raw string's opening; its end is found below
    r'|(?P<string>"(?:\\.|[^"\\])*")'
    r"|(?P<char>'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^'\\\n])')"
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)",
    re.S,
)
USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
INLINE = re.compile(rf"\b(crate|super|self)((?:\s*::\s*{IDENT})+)")
INLINE_MOD = re.compile(rf"\bmod\s+({IDENT})\s*\{{")
DEFINITION = re.compile(
    rf"\b(?:struct|enum|union|trait|type|fn|const|static|macro_rules!)\s+({IDENT})"
)


def blank_literals(text):
    """The text with comments removed and strings and characters emptied."""
    pieces, position = [], 0
    while True:
        match = LITERAL.search(text, position)
        if not match:
            pieces.append(text[position:])
            return "".join(pieces)
        end = match.end()
        if match.group("raw"):
            closing = text.find('"' + match.group("hashes"), end)
            end = len(text) if closing < 0 else closing + 1 + len(match.group("hashes"))
        pieces.append(text[position : match.start()])
        if match.group("comment") is None:
            pieces.append("' '" if match.group("char") else '""')
        position = end


def module_of(root, path):
    """The module path of a file: lib.rs is (), a/mod.rs and a.rs are (a,)."""
    relative = os.path.relpath(path, root)[: -len(".rs")].split(os.sep)
    if relative[-1] in ("lib", "main", "mod"):
        relative = relative[:-1]
    return tuple(relative)


def inline_modules(text):
    """(start, end, name) of each `mod name { … }` written inside a file."""
    spans = []
    for match in INLINE_MOD.finditer(text):
        depth = 0
        for position in range(match.end() - 1, len(text)):
            depth += text[position] == "{"
            depth -= text[position] == "}"
            if depth == 0:
                spans.append((match.end(), position, match.group(1)))
                break
    return spans


def module_at(module, spans, position):
    """The module a position of a file is in, inline modules included."""
    inner = sorted((start, name) for start, end, name in spans if start <= position <= end)
    return tuple(module) + tuple(name for _, name in inner)


def split_top(text):
    depth, current, pieces = 0, "", []
    for char in text:
        if char == "," and depth == 0:
            pieces.append(current)
            current = ""
            continue
        depth += char == "{"
        depth -= char == "}"
        current += char
    if current.strip():
        pieces.append(current)
    return pieces


def expand(tree):
    """`a::{b, c::{d as e}}` -> [([a, b], b), ([a, c, d], e)]; a glob's name is *."""
    tree = re.sub(r"\s+", " ", tree).strip()
    if "{" not in tree:
        alias = None
        if " as " in tree:
            tree, alias = [part.strip() for part in tree.split(" as ")]
        segments = [segment.strip() for segment in tree.split("::") if segment.strip()]
        if segments and segments[-1] == "self":
            segments = segments[:-1]
        return [(segments, alias or (segments[-1] if segments else "_"))]
    start = tree.index("{")
    end = tree.rindex("}")
    prefix = tree[:start]
    leaves = []
    for piece in split_top(tree[start + 1 : end]):
        leaves += expand(prefix + piece.strip())
    return leaves


def absolute(module, segments):
    """The crate-absolute path of `crate::…`, `super::…` or `self::…`."""
    head, rest = segments[0], segments[1:]
    if head == "crate":
        return list(rest)
    base = list(module)
    while head in ("super", "self"):
        if head == "super":
            base = base[:-1]
        if not rest:
            return base
        head, rest = rest[0], rest[1:]
    return base + [head] + list(rest)


class Crate:
    def __init__(self, root):
        self.files = {}
        for folder, _, names in os.walk(root):
            for name in names:
                if name.endswith(".rs"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as source:
                        text = blank_literals(source.read())
                    self.files[path] = text
        self.modules = {module_of(root, path): path for path in self.files}
        self.defined = {}
        self.reexports = {}
        self.globs = {}
        self.uses = {}
        for path, text in self.files.items():
            self.read(path, text, module_of(root, path))

    def read(self, path, text, module):
        spans = inline_modules(text)
        self.defined.setdefault(module, set()).update(DEFINITION.findall(text))
        children = {key[-1]: list(key) for key in self.modules if key[:-1] == module and len(key) == len(module) + 1}
        self.defined[module].update(children)
        uses = []
        for match in USE.finditer(text):
            at = module_at(module, spans, match.start())
            for segments, alias in expand(match.group(2)):
                if not segments:
                    continue
                if segments[0] in children and at == module:
                    segments = ["crate"] + children[segments[0]] + segments[1:]
                if segments[0] not in ("crate", "super", "self"):
                    continue
                target = absolute(at, segments)
                uses.append((match.start(), target, alias))
                if match.group(1) and at == module:
                    if alias == "*":
                        self.globs.setdefault(module, []).append(target[:-1])
                    else:
                        self.reexports.setdefault(module, {})[alias] = target
        self.uses[path] = (module, spans, uses, children)

    def provides(self, module, name, depth=0):
        """Whether `module` defines or re-exports `name`."""
        if name in self.defined.get(module, ()) or name in self.reexports.get(module, {}):
            return True
        return depth < 16 and any(self.provides(tuple(glob), name, depth + 1) for glob in self.globs.get(module, []))

    def resolve(self, path, depth=0):
        """The file defining the item `path` names (its module's file at worst)."""
        path = [segment for segment in path if segment != "*"]
        for length in range(len(path), -1, -1):
            module = tuple(path[:length])
            if module not in self.modules:
                continue
            rest = path[length:]
            if rest and depth < 16 and rest[0] not in self.defined.get(module, ()):
                if rest[0] in self.reexports.get(module, {}):
                    return self.resolve(self.reexports[module][rest[0]] + rest[1:], depth + 1)
                for glob in self.globs.get(module, []):
                    if self.provides(tuple(glob), rest[0]):
                        return self.resolve(glob + rest, depth + 1)
            return self.modules[module]
        return None

    def edges(self):
        edges = {}
        for path, text in self.files.items():
            module, spans, uses, children = self.uses[path]
            paths = [target for _, target, _ in uses]
            # Names that stand for a crate module here: child modules and
            # imported modules (`use crate::a::{self, b}`).
            local = dict(children)
            for _, target, alias in uses:
                if tuple(target) in self.modules and alias != "*":
                    local[alias] = target
            for match in INLINE.finditer(text):
                # The head of a grouped `use a::{…}` is no item of its own.
                if re.match(r"\s*::\s*\{", text[match.end() :]):
                    continue
                segments = [match.group(1)] + re.sub(r"\s", "", match.group(2)).split("::")[1:]
                paths.append(absolute(module_at(module, spans, match.start()), segments))
            if local:
                names = "|".join(map(re.escape, local))
                for match in re.finditer(rf"(?<![\w:])({names})((?:\s*::\s*{IDENT})+)", text):
                    rest = re.sub(r"\s", "", match.group(2)).split("::")[1:]
                    paths.append(local[match.group(1)] + rest)
            targets = {self.resolve(target) for target in paths}
            edges[path] = {target for target in targets if target and target != path}
        return edges


def components(edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", help="a crate's source folder, e.g. actors/src")
    parser.add_argument("--graph", action="store_true", help="also print every file's imports")
    parser.add_argument("--max", type=int, default=2, help="largest circle allowed, in files")
    arguments = parser.parse_args()
    root = arguments.src.rstrip("/")
    edges = Crate(root).edges()
    name = lambda path: os.path.relpath(path, root)
    if arguments.graph:
        for path in sorted(edges, key=name):
            print(f"{name(path)} -> {', '.join(sorted(map(name, edges[path]))) or '-'}")
        print()
    circles = [component for component in components(edges) if len(component) > arguments.max]
    for component in circles:
        print(f"circle of {len(component)} files: {' '.join(sorted(map(name, component)))}")
    if not circles:
        print(f"{root}: no import circle of more than {arguments.max} files")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
