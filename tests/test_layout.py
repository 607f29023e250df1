"""The package's layout shows its flow: core -> systems -> record -> sweep (replay and analysis) -> report ->
commands. Every import points down the layers, the systems are peers (none imports another), and the product
never imports its tools. A new module goes in the layer that owns its subject; this test says where an import
would run upward or sideways."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "quotefinder"
# Lowest first. A module may import its own layer and the ones listed before it.
LAYERS = [
    ("core", {"quotefinder", "quotefinder.core"}),
    ("systems", set()),  # each system's own package: `SYSTEMS`
    ("record", {"quotefinder.questions", "quotefinder.record"}),
    ("sweep", {"quotefinder.sweep"}),
    ("report", {"quotefinder.report"}),
    # the Python API, a face over sweep and report for users and command lines, and the configuration both read
    ("api", {"quotefinder.api", "quotefinder.config"}),
    # `quotefinder VERB` (one module a verb, and what they share) and its aliases, eval.py and sweep.py
    ("command lines", {"quotefinder.cli", "quotefinder.commands", "quotefinder.__main__", "quotefinder.evalcmd",
                       "quotefinder.sweepcmd"}),
    # The tool beside the product: the stand-in API and its scenario tools. Users run it; the product never
    # imports it.
    ("tools", {"quotefinder.standin"}),
]
SYSTEMS = {"quotefinder.recipe", "quotefinder.quoteanswer", "quotefinder.oneshot"}  # peers
# The package re-exports the Python API's names, imported on first use (PEP 562 `__getattr__`); its import of
# quotefinder.api is for type checkers alone, so `import quotefinder` stays in the core: the one import allowed up.
FACE = ("quotefinder", "quotefinder.api")
LAYERS[1][1].update(SYSTEMS)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
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


def imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module) for every quotefinder import in the file, type-checking ones included."""
    name = module_name(path, root)
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


def system_of(module: str) -> str | None:
    """The system package a module belongs to, or None."""
    return next((s for s in SYSTEMS if module == s or module.startswith(s + ".")), None)


def upward_imports(root: Path = ROOT) -> list[str]:
    """Every import in the package under `root` that runs up the layers, or from one system into another, as
    'file:line (layer) imports ...'."""
    upward = []
    for path in sorted((root / "quotefinder").rglob("*.py")):
        name = module_name(path, root)
        here = layer_of(name)
        for line, target in imports(path, root):
            if (name, target) == FACE:
                continue
            if layer_of(target) > here:
                upward.append(f"{path.relative_to(root)}:{line} ({LAYERS[here][0]}) imports {target} "
                              f"({LAYERS[layer_of(target)][0]})")
            elif system_of(name) and system_of(target) and system_of(name) != system_of(target):
                upward.append(f"{path.relative_to(root)}:{line} ({system_of(name)}) imports {target} "
                              "(another system)")
    return upward


def naming_a_system(root: Path = ROOT) -> list[str]:
    """Every module outside the systems' packages and the test tools that imports a system, as 'file:line imports
    ...': a layer that names a system instead of asking the registry."""
    naming = []
    for path in sorted((root / "quotefinder").rglob("*.py")):
        name = module_name(path, root)
        if system_of(name) or layer_of(name) == len(LAYERS) - 1:
            continue
        naming += [f"{path.relative_to(root)}:{line} imports {target}" for line, target in imports(path, root)
                   if system_of(target)]
    return naming


def test_no_layer_names_a_system_but_the_system_itself() -> None:
    """Outside the systems' packages (and the stand-in), no module imports a system: every layer asks
    the registry, so a new system is its own package and one registration."""
    naming = naming_a_system()
    assert not naming, "modules that import a system (ask `core.registry`):\n" + "\n".join(naming)


def test_the_checker_catches_a_layer_that_imports_a_system(tmp_path: Path) -> None:
    """The test above can fail: a report module and a command line that import a system are caught, on their
    line; a system importing itself, a test tool importing a system and a layer importing the core are not."""
    write_package(tmp_path, {
        "quotefinder.report.named": "from ..core.registry import system\nfrom ..recipe.config import SYSTEM\n",
        "quotefinder.cli": "import quotefinder.oneshot.system\n",
        "quotefinder.recipe.own": "from .config import RECIPE\n",
        "quotefinder.standin.tool": "from ..recipe import sentences\n",
    })
    assert naming_a_system(tmp_path) == ["quotefinder/cli.py:1 imports quotefinder.oneshot.system",
                                         "quotefinder/report/named.py:2 imports quotefinder.recipe.config"]


def test_every_import_points_down_the_layers() -> None:
    upward = upward_imports()
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


def test_the_layers_are_in_order() -> None:
    assert layer_of("quotefinder.sweep.grid") > layer_of("quotefinder.recipe.decision")
    assert layer_of("quotefinder.standin.server") > layer_of("quotefinder.sweepcmd")
    assert layer_of("quotefinder.standin") == layer_of("quotefinder.standin.squad") == len(LAYERS) - 1
    assert layer_of("quotefinder.core.plugin") == 0 and layer_of("quotefinder") == 0
    assert layer_of("quotefinder.oneshot.system") == layer_of("quotefinder.recipe.system") == 1
    assert layer_of("quotefinder.commands.sweep") > layer_of("quotefinder.config")  # longest prefix wins
    assert layer_of("quotefinder.__main__") == layer_of("quotefinder.commands.sweep") == layer_of("quotefinder.cli")


def write_package(root: Path, modules: dict[str, str]) -> None:
    """A throwaway copy of the package's shape under `root`: each module's source, with its __init__ files."""
    for name, source in modules.items():
        path = root / Path(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in [path.parent, *path.parent.parents]:
            if folder == root:
                break
            (folder / "__init__.py").touch()
        path.write_text(textwrap.dedent(source), encoding="utf-8")


def test_the_checker_catches_a_module_that_imports_upward(tmp_path: Path) -> None:
    """The test above can fail: a recipe module that imports the sweep (relatively, absolutely, or only for
    type checking) and a product module that imports a test tool are each caught, on their line; an import
    down the layers is not."""
    write_package(tmp_path, {
        "quotefinder.recipe.bad": """\
            from __future__ import annotations
            from typing import TYPE_CHECKING
            from ..sweep import grid
            import quotefinder.report.plots
            from .decision import decide
            if TYPE_CHECKING:
                from quotefinder.sweep.analysis import Sweep
            """,
        "quotefinder.sweep.fine": "from ..recipe.decision import decide\nfrom quotefinder.core import errors\n",
        "quotefinder.record.tools": "from ..standin import StandIn\n",
        "quotefinder.oneshot.peer": "from ..recipe.contract import MAX_RESULTS\nfrom ..core.flow import replay\n",
    })
    assert imports(tmp_path / "quotefinder" / "recipe" / "bad.py", tmp_path) == [
        (3, "quotefinder.sweep"), (4, "quotefinder.report.plots"), (5, "quotefinder.recipe.decision"),
        (7, "quotefinder.sweep.analysis")]
    assert upward_imports(tmp_path) == [
        "quotefinder/oneshot/peer.py:1 (quotefinder.oneshot) imports quotefinder.recipe.contract (another system)",
        "quotefinder/recipe/bad.py:3 (systems) imports quotefinder.sweep (sweep)",
        "quotefinder/recipe/bad.py:4 (systems) imports quotefinder.report.plots (report)",
        "quotefinder/recipe/bad.py:7 (systems) imports quotefinder.sweep.analysis (sweep)",
        "quotefinder/record/tools.py:1 (record) imports quotefinder.standin (tools)",
    ]


def test_imports_finds_every_quotefinder_import_of_a_real_module() -> None:
    """An `imports` that found nothing would pass every check above: it must see what commands/sweeping.py imports,
    relative and absolute, and nothing that is not quotefinder's."""
    path = PACKAGE / "commands" / "sweeping.py"
    found = {target for _, target in imports(path)}
    source = path.read_text(encoding="utf-8")
    assert {"quotefinder.cli", "quotefinder.core.errors", "quotefinder.report", "quotefinder.report.directory",
            "quotefinder.sweep.analysis", "quotefinder.sweep.grid", "quotefinder.sweep.session"} <= found
    assert all(target.startswith("quotefinder") for target in found)
    lines = source.splitlines()
    for line, target in imports(path):
        assert "import" in lines[line - 1] and target.rsplit(".", 1)[-1] in lines[line - 1], (line, target)
    assert len(imports(PACKAGE / "record" / "session.py")) >= 8


def test_tests_mirror_the_package() -> None:
    """Each subpackage has its tests in the folder of the same name."""
    for package in ("recipe", "record", "sweep", "report", "standin", "commands"):
        assert (PACKAGE / package / "__init__.py").exists()
        assert list((ROOT / "tests" / package).glob("test_*.py")), f"tests/{package}/ has no tests"


# A package's __init__.py that holds only its docstring: nothing in it to test.
DOCSTRING_ONLY = {"quotefinder/oneshot/__init__.py", "quotefinder/quoteanswer/__init__.py",
                  "quotefinder/recipe/__init__.py", "quotefinder/record/__init__.py", "quotefinder/report/__init__.py",
                  "quotefinder/sweep/__init__.py"}
# Modules still without the test file of their name: none now; a module added before its tests goes here.
NO_TEST_FILE_YET: set[str] = set()


def mirror_of(path: Path) -> Path:
    """Where the tests of a module live: quotefinder/<package>/<module>.py in tests/<package>/test_<module>.py, a
    top-level module in tests/test_<module>.py, a package's __init__.py and __main__.py in the package's own name
    (tests/questions/test_questions.py)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    folders, name = parts[:-1], parts[-1]
    if name in ("__init__", "__main__"):
        name = folders[-1] if folders else "quotefinder"
    return ROOT.joinpath("tests", *folders, f"test_{name}.py")


def test_every_module_has_the_test_file_of_its_name() -> None:
    """Tests mirror the package one file per module, so that a module's tests are found where its name says."""
    modules = sorted(PACKAGE.rglob("*.py"))
    missing = {str(path.relative_to(ROOT)) for path in modules if not mirror_of(path).exists()}
    for name in DOCSTRING_ONLY:
        body = ast.parse((ROOT / name).read_text(encoding="utf-8")).body
        assert all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body), (
            f"{name} holds more than its docstring now: give it {mirror_of(ROOT / name).relative_to(ROOT)}")
    lacking = missing - DOCSTRING_ONLY - NO_TEST_FILE_YET
    assert not lacking, "modules without the test file of their name:\n" + "\n".join(
        f"{name}: {mirror_of(ROOT / name).relative_to(ROOT)}" for name in sorted(lacking))
    assert not NO_TEST_FILE_YET - missing, f"{sorted(NO_TEST_FILE_YET - missing)} have their test file now: drop them"
    assert mirror_of(PACKAGE / "sweep" / "session.py") == ROOT / "tests" / "sweep" / "test_session.py"
    assert mirror_of(PACKAGE / "questions" / "__main__.py") == ROOT / "tests" / "questions" / "test_questions.py"
    assert mirror_of(PACKAGE / "cli.py") == ROOT / "tests" / "test_cli.py"
