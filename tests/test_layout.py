"""The package's layout shows its flow: every import points down the layers, and the product never
imports its test tools. A new module goes in the layer that owns its subject; this test says where
an import would run upward."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "quotefinder"
# Lowest first. A module may import its own layer and the ones listed before it.
LAYERS = [
    ("shared", {"quotefinder", "quotefinder.errors", "quotefinder.textsafe", "quotefinder.storage",
                "quotefinder.questions"}),
    ("recipe", {"quotefinder.recipe"}),
    ("record", {"quotefinder.record"}),
    ("sweep", {"quotefinder.sweep"}),
    ("report", {"quotefinder.report"}),
    ("command lines", {"quotefinder.cli", "quotefinder.evalcmd", "quotefinder.sweepcmd",
                       "quotefinder.questions.__main__"}),
    ("testing", {"quotefinder.testing"}),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """The layer of a module: the longest matching prefix among the layers' packages and modules."""
    best, found = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), index
    assert found >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return found


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every quotefinder import in the file, type-checking ones included."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            targets = [target] if node.module else [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, t) for t in targets if t == "quotefinder" or t.startswith("quotefinder.")]
    return found


def test_every_import_points_down_the_layers() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = layer_of(module_name(path))
        for line, target in imports(path):
            if layer_of(target) > here:
                upward.append(f"{path.relative_to(ROOT)}:{line} ({LAYERS[here][0]}) imports {target} "
                              f"({LAYERS[layer_of(target)][0]})")
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The test above would fail on a violation: a recipe module importing the sweep is caught."""
    assert layer_of("quotefinder.sweep.grid") > layer_of("quotefinder.recipe.decision")
    assert layer_of("quotefinder.testing.standin") > layer_of("quotefinder.sweepcmd")
    assert layer_of("quotefinder.questions") == 0 and layer_of("quotefinder") == 0


def test_tests_mirror_the_package() -> None:
    """Each subpackage has its tests in the folder of the same name."""
    for package in ("recipe", "record", "sweep", "report", "testing"):
        assert (PACKAGE / package / "__init__.py").exists()
        assert list((ROOT / "tests" / package).glob("test_*.py")), f"tests/{package}/ has no tests"
