"""The dependency rules of ``docs/layers.toml``, read and applied to the source.

One reader for the one statement of the rules: ``tests/unit/test_layout.py`` uses it to
check every import, and it renders the tables of ``docs/architecture.md``::

    python tests/layering.py check            # every import against the rules
    python tests/layering.py graph            # rooms and the arrows that exist, as a table
    python tests/layering.py rules            # rooms and the arrows that may exist
    python tests/layering.py docs             # rewrite the generated sections of the docs
    python tests/layering.py graph --root DIR # the same for another checkout (before/after)

Imports are read with ``ast`` (nothing is imported): module-level, function-level and
``TYPE_CHECKING``-only imports all count, and so do ``importlib.import_module`` /
``__import__`` calls in a module, through every string literal in it that names a project
module (the lazy re-export tables of the package faces are written that way).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES_FILE = Path("docs") / "layers.toml"
DOCS_FILE = Path("docs") / "architecture.md"
LAYERS = ("grammar", "solver", "certificates", "forge")
_DOTTED = re.compile(r"derivative(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Room:
    name: str
    summary: str
    patterns: tuple[str, ...]
    face: str
    may_import: frozenset[str]
    stdlib_only: tuple[str, ...] = ()

    @property
    def package(self) -> str:
        """The room's face: its shortest pattern without a wildcard."""
        return min((p for p in self.patterns if "*" not in p), key=len, default="")


@dataclass(frozen=True)
class Never:
    source: str
    targets: tuple[str, ...]
    why: str

    def forbids(self, src: str, dst: str) -> bool:
        return fnmatch.fnmatchcase(src, self.source) and any(
            fnmatch.fnmatchcase(dst, t) for t in self.targets
        )


@dataclass(frozen=True)
class Rules:
    rooms: dict[str, Room]
    never: tuple[Never, ...]
    may_print_or_exit: tuple[str, ...]

    def room_of(self, module: str) -> str:
        """The room a module belongs to: longest matching pattern, else its parent's room."""
        best: tuple[int, str] | None = None
        for room in self.rooms.values():
            for pattern in room.patterns:
                if fnmatch.fnmatchcase(module, pattern):
                    score = len(pattern.rstrip("*"))
                    if best is None or score > best[0]:
                        best = (score, room.name)
        if best is not None:
            return best[1]
        parent = module.rpartition(".")[0]
        return self.room_of(parent) if parent else "?"

    def may_print(self, module: str) -> bool:
        return any(fnmatch.fnmatchcase(module, p) for p in self.may_print_or_exit)

    def is_stdlib_only(self, module: str) -> bool:
        return any(
            fnmatch.fnmatchcase(module, p) for r in self.rooms.values() for p in r.stdlib_only
        )


def load_rules(root: Path = ROOT) -> Rules:
    data = tomllib.loads((root / RULES_FILE).read_text(encoding="utf-8"))
    rooms = {
        name: Room(
            name=name,
            summary=spec["summary"],
            patterns=tuple(spec["modules"]),
            face=spec["face"],
            may_import=frozenset(spec["may_import"]),
            stdlib_only=tuple(spec.get("stdlib_only", ())),
        )
        for name, spec in data["rooms"].items()
    }
    never = tuple(Never(n["from"], tuple(n["to"]), n["why"]) for n in data.get("never", ()))
    return Rules(rooms, never, tuple(data["output"]["may_print_or_exit"]))


# --------------------------------------------------------------------------- the source


def _module_name(path: Path, root: Path, prefix: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


def _python_files(top: Path, follow: bool) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(top, followlinks=follow):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                yield Path(dirpath) / f


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package, named as it imports (layers through their symlinks)."""
    pkg = root / "derivative"
    found: dict[str, Path] = {}
    for path in _python_files(pkg, follow=False):
        rel = path.relative_to(pkg)
        if rel.parts[0] in LAYERS and (pkg / rel.parts[0]).is_symlink():
            continue
        found[_module_name(path, pkg, "derivative")] = path
    for layer in LAYERS:
        top = root / layer
        if (pkg / layer).is_symlink() and top.is_dir():
            for path in _python_files(top, follow=False):
                found[_module_name(path, top, f"derivative.{layer}")] = path
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    how: str  # "import", "from", "importlib"


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module
    lines: int
    imports: list[Import] = field(default_factory=list)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _calls_importlib(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "import_module":
                return True
            if isinstance(f, ast.Name) and f.id in {"import_module", "__import__"}:
                return True
    return False


def read_module(name: str, path: Path, known: set[str]) -> Module:
    """A module with every project import it makes, resolved to absolute names."""
    source = path.read_text(encoding="utf-8")
    return module_from_source(name, source, known, path=path)


def module_from_source(
    name: str, source: str, known: set[str], *, path: Path | None = None,
    is_package: bool | None = None,
) -> Module:
    """Like ``read_module`` for a source text (the tests feed the checker this way)."""
    tree = ast.parse(source)
    package = path.name == "__init__.py" if path is not None else bool(is_package)
    mod = Module(name, path or Path(name), package, tree, len(source.splitlines()))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                mod.imports.append(Import(name, alias.name, node.lineno, "import"))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, name, mod.is_package)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                # `from pkg import submodule` imports the submodule; `from pkg import name`
                # imports the package (its face)
                mod.imports.append(Import(name, sub if sub in known else target, node.lineno,
                                          "from"))
    if _calls_importlib(tree):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _DOTTED.fullmatch(node.value)
                and node.value in known
            ):
                mod.imports.append(Import(name, node.value, node.lineno, "importlib"))
    mod.imports = [i for i in mod.imports if i.target.split(".")[0] == "derivative"
                   or i.how == "import" or i.target.startswith(".")]
    return mod


def read_project(root: Path = ROOT) -> dict[str, Module]:
    files = project_modules(root)
    known = set(files)
    return {name: read_module(name, path, known) for name, path in files.items()}


# --------------------------------------------------------------------------- the rules


def is_private(module: str) -> bool:
    """Whether a module is behind a face: one of its components starts with ``_``."""
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def violations(rules: Rules, mod: Module) -> list[str]:
    """Every import of ``mod`` that the rules refuse, with the reason."""
    src = rules.room_of(mod.name)
    bad: list[str] = []
    for imp in mod.imports:
        if imp.target.split(".")[0] != "derivative":
            continue
        dst = rules.room_of(imp.target)
        if dst == src:
            continue
        where = f"line {imp.line}: {imp.target} ({src} -> {dst})"
        for never in rules.never:
            if never.forbids(src, dst):
                bad.append(f"{where}: never: {never.why}")
                break
        else:
            if dst not in rules.rooms[src].may_import:
                bad.append(f"{where}: {src} may not import {dst}")
            elif rules.rooms[dst].face == "package" and is_private(imp.target):
                bad.append(f"{where}: reach {dst} through its face {rules.rooms[dst].package}")
    return bad


def non_stdlib_imports(mod: Module) -> list[str]:
    """Imports that are not from the standard library (relative ones included)."""
    bad = []
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if name.startswith(".") or (top not in sys.stdlib_module_names and top != "__future__"):
                bad.append(f"line {node.lineno}: {name}")
    return bad


def prints_or_exits(tree: ast.Module) -> list[str]:
    """Calls that print or end the process (``print``, ``sys.exit``, ``exit``, ``os._exit``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in {"print", "exit", "quit"}:
                found.append(f"{f.id}() at line {node.lineno}")
            elif (
                isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Name)
                and (f.value.id, f.attr) in {("sys", "exit"), ("os", "_exit")}
            ):
                found.append(f"{f.value.id}.{f.attr}() at line {node.lineno}")
        elif (
            isinstance(node, ast.Raise)
            and node.exc is not None
            and "SystemExit" in ast.unparse(node.exc)
        ):
            found.append(f"raise SystemExit at line {node.lineno}")
    return found


def rule_errors(rules: Rules) -> list[str]:
    """Contradictions inside the rules file itself."""
    errors = []
    for room in rules.rooms.values():
        for dst in room.may_import:
            if dst not in rules.rooms:
                errors.append(f"{room.name} may import unknown room {dst}")
            for never in rules.never:
                if never.forbids(room.name, dst):
                    errors.append(f"{room.name} -> {dst} is both allowed and never ({never.why})")
    return errors


# --------------------------------------------------------------------------- tables


def arrows(rules: Rules, modules: dict[str, Module]) -> dict[str, Counter[str]]:
    """Room -> the rooms it imports, with the number of import statements."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for mod in modules.values():
        src = rules.room_of(mod.name)
        out[src]  # every room appears, even one that imports nothing
        seen: set[tuple[int, str]] = set()
        for imp in mod.imports:
            if imp.target.split(".")[0] != "derivative":
                continue
            dst = rules.room_of(imp.target)
            if dst != src and (imp.line, dst) not in seen:
                seen.add((imp.line, dst))
                out[src][dst] += 1
    return out


def graph_table(rules: Rules, modules: dict[str, Module]) -> str:
    """Rooms with their modules and the arrows that exist in the code, as a Markdown table.

    Sizes and import counts are left out on purpose: the table is compared with the docs by
    a test, and it should change when the architecture does (a module, an arrow), not on
    every edit (``arrows`` still counts them, for whoever wants the numbers).
    """
    counts: dict[str, int] = defaultdict(int)
    for mod in modules.values():
        counts[rules.room_of(mod.name)] += 1
    found = arrows(rules, modules)
    order = [r for r in rules.rooms if r in counts] + sorted(set(counts) - set(rules.rooms))
    rows = ["| room | modules | imports (arrows that exist) |", "| --- | ---: | --- |"]
    for room in order:
        out = ", ".join(sorted(found[room])) or "nothing"
        rows.append(f"| {room} | {counts[room]} | {out} |")
    return "\n".join(rows)


def rules_table(rules: Rules) -> str:
    rows = ["| room | what it holds | face | may import |", "| --- | --- | --- | --- |"]
    for room in rules.rooms.values():
        face = f"`{room.package}`" if room.face == "package" else "every module"
        may = ", ".join(sorted(room.may_import)) or "nothing of the project"
        if room.stdlib_only:
            may += " (the staged files: the standard library only)"
        rows.append(f"| {room.name} | {room.summary} | {face} | {may} |")
    rows += ["", "| never | to | why |", "| --- | --- | --- |"]
    for never in rules.never:
        rows.append(f"| {never.source} | {', '.join(never.targets)} | {never.why} |")
    return "\n".join(rows)


def _section(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- generated: {name} .*?-->\n)(.*?)(<!-- end: {name} -->)", re.DOTALL
    )


def render_docs(text: str, rules: Rules, modules: dict[str, Module]) -> str:
    """``text`` with its generated sections (rules, graph) brought up to date."""
    for name, body in (("rules", rules_table(rules)), ("graph", graph_table(rules, modules))):
        pattern = _section(name)
        if not pattern.search(text):
            raise ValueError(f"{DOCS_FILE} has no section '<!-- generated: {name} ... -->'")
        text = pattern.sub(lambda m, b=body: m.group(1) + b + "\n" + m.group(3), text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["check", "graph", "rules", "docs"])
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout (default: this one)")
    parser.add_argument("--rules", type=Path, default=None,
                        help="the rules file (default: this checkout's docs/layers.toml)")
    args = parser.parse_args(argv)
    rules = load_rules(args.rules.parent.parent if args.rules else ROOT)
    modules = read_project(args.root)
    if args.what == "graph":
        print(graph_table(rules, modules))
    elif args.what == "rules":
        print(rules_table(rules))
    elif args.what == "docs":
        path = args.root / DOCS_FILE
        path.write_text(render_docs(path.read_text(encoding="utf-8"), rules, modules))
        print(f"wrote {path}")
    else:
        bad = rule_errors(rules) + [
            f"{m.name}: {v}" for m in modules.values() for v in violations(rules, m)
        ]
        print("\n".join(bad) or "every import follows docs/layers.toml")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
