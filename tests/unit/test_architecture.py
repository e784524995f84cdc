"""The package's import graph: no module reaches itself through others (lazy imports count).

The layers themselves are import-linter's contracts in pyproject.toml (`make lint`)."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

BENCH = Path(__file__).resolve().parents[2] / "bench"


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_package_has_no_import_cycle() -> None:
    assert cycles(grimp.build_graph("bot")) == []


def test_a_cycle_is_found() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(name)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")
    graph.add_import(importer="a.c", imported="a.d")
    assert cycles(graph) == [["a.b", "a.c"]]



def test_bench_imports_nothing_from_the_tests() -> None:
    """The benchmarks use the test servers from `bot.testing`, never the test suite itself
    (whose layout may change, and which bench/ would otherwise have to put on sys.path)."""
    imported: list[str] = []
    for path in sorted(BENCH.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported += [f"{path.name}: {node.module}"]
            elif isinstance(node, ast.Import):
                imported += [f"{path.name}: {alias.name}" for alias in node.names]
    assert any(": bot.testing" in line for line in imported)
    assert [line for line in imported if line.split(": ")[1].split(".")[0] == "tests"] == []
    assert "sys.path.insert" not in "".join(p.read_text() for p in BENCH.glob("*.py"))
