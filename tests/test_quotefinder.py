"""The package's own module: its version is the one the distribution is built with, and its public names
(`__all__`) are the API's, documented, typed, and imported only when used."""

from __future__ import annotations

import inspect
import subprocess
import sys
import tomllib
from collections.abc import Callable

import pytest

import quotefinder
from conftest import ROOT
from quotefinder import api


def test_the_version_is_pyprojects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert quotefinder.__version__ == project["version"]
    assert quotefinder.__doc__ and project["name"] in quotefinder.__doc__


def test_the_public_names_are_the_apis_and_documented() -> None:
    documented = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert quotefinder.__all__ == sorted(quotefinder.__all__)
    for name in quotefinder.__all__:
        value = getattr(quotefinder, name)
        assert value.__name__ == name and f"`{name}`" in documented, name
        assert name in dir(quotefinder)
    assert quotefinder.open_run is api.open_run and quotefinder.SweepResult is api.SweepResult


def test_a_name_it_does_not_have_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        quotefinder.no_such_name  # noqa: B018


def _typed(function: Callable[..., object]) -> list[str]:
    """The parameters (and 'return') of `function` that carry no annotation."""
    signature = inspect.signature(function)
    bare = [name for name, parameter in signature.parameters.items()
            if name != "self" and parameter.annotation is inspect.Parameter.empty]
    return bare + (["return"] if signature.return_annotation is inspect.Signature.empty else [])


def test_the_public_names_are_typed() -> None:
    for name in quotefinder.__all__:
        value = getattr(quotefinder, name)
        if isinstance(value, type) and issubclass(value, Exception):
            continue
        members = [value] if not isinstance(value, type) else [
            member.fget if isinstance(member, property) else member
            for key, member in vars(value).items() if not key.startswith("_") and callable(
                member.fget if isinstance(member, property) else member)]
        for member in members:
            assert member is not None and not _typed(member), f"{name}.{getattr(member, '__name__', '')}"


def test_importing_the_package_imports_no_heavy_module() -> None:
    code = ("import sys, quotefinder; print(' '.join(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('pandas', 'numpy', 'matplotlib', 'PIL') or m == 'quotefinder.api')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == ""
