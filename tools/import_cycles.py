#!/usr/bin/env python3
"""Every import circle among pacman's and agents' modules, imports inside functions counted.

``lint-imports`` checks layers between packages; a circle between two modules of one layer, or
one closed only by an import inside a function, passes it. grimp (which import-linter builds on)
records every import statement, so the circles are the graph's strongly connected components.
Prints each circle with the imports that close it; exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import sys

import grimp

PACKAGES = ("pacman", "agents")


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = lowest[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is not None:
                if step not in index:
                    index[step] = lowest[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    lowest[module] = min(lowest[module], index[step])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowest[parent] = min(lowest[parent], lowest[module])
            if lowest[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def closing_imports(graph: grimp.ImportGraph, component: list[str]) -> list[str]:
    """Each import from one member of ``component`` to another, as ``module:line -> module``."""
    members = set(component)
    lines = []
    for importer in component:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            for detail in graph.get_import_details(importer=importer, imported=imported):
                lines.append(f"{importer}:{detail['line_number']} -> {imported}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "packages", nargs="*", default=list(PACKAGES), help="default: pacman agents"
    )
    packages = parser.parse_args(argv).packages
    try:
        graph = grimp.build_graph(*packages, cache_dir=None)
    except ValueError as error:  # grimp's word for a package it cannot import
        print(f"import_cycles: {error}", file=sys.stderr)
        return 2
    found = circles(graph)
    for number, component in enumerate(found, start=1):
        print(f"circle {number}: {' '.join(component)}")
        for line in closing_imports(graph, component):
            print(f"  {line}")
    print(f"{len(found)} import circles among {len(graph.modules)} modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
