#!/usr/bin/env python3
"""Import cycles between the modules (files) of one crate's src/ folder.

Usage: python3 scripts/module-cycles.py shared/src [more/src ...]
A module depends on another when its text names it by a `crate::` path, a `super::` path
or a `use crate::{…}` group (doc links count: they are dependencies of the reader). Exits
1 and names every cycle found. Unit-test modules at the end of a file are left out."""
import os
import re
import sys


def modules(src):
    found = {}
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src)[:-3].replace(os.sep, "::")
                found[re.sub(r"(::)?(mod|lib|main)$", "", rel)] = path
    return found


def dependencies(found):
    def resolve(path):
        parts = path.split("::")
        for k in range(len(parts), 0, -1):
            name = "::".join(parts[:k])
            if name in found:
                return name
        return None

    edges = {m: set() for m in found}
    for m, path in found.items():
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)
        parent = "::".join(m.split("::")[:-1])
        paths = re.findall(r"crate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", text)
        for group in re.findall(r"use\s+crate::\{([^;]*)\};", text, flags=re.S):
            paths += [i.strip().split("::{")[0].split(" as ")[0] for i in group.split(",")]
        for rel in re.findall(r"super::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", text):
            paths.append(f"{parent}::{rel}" if parent else rel)
        for group in re.findall(r"use\s+super::\{([^;]*)\};", text, flags=re.S):
            for item in group.split(","):
                item = item.strip().split("::{")[0].split(" as ")[0]
                paths.append(f"{parent}::{item}" if parent else item)
        for p in paths:
            target = resolve(p)
            if target not in (None, "", m):
                edges[m].add(target)
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


failed = False
for src in sys.argv[1:]:
    for component in cycles(dependencies(modules(src))):
        failed = True
        print(f"{src}: import cycle: {' <-> '.join(component)}")
sys.exit(1 if failed else 0)
