"""Which systems exist: the three this package ships, any a Python package declares in the entry point group
``quotefinder.systems`` (a team's own pipeline as its own package, found once installed), and any registered in
the process (`register`). Every layer asks here (`system`, `known_systems`); nothing else lists the systems.

A plugin package declares its system in its pyproject.toml::

    [project.entry-points."quotefinder.systems"]
    my-pipeline = "my_package.system:SYSTEM"

where ``SYSTEM`` is an object with the attributes and methods of `plugin.System`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from .errors import InputError
from .plugin import AxisSpec, System

DEFAULT_SYSTEM = "quote-finder"
GROUP = "quotefinder.systems"
# The systems this package ships, as "module:attribute", the default first: imported when first asked for, so
# that no system is imported by the core.
BUILT_IN = ("quotefinder.recipe.system:QUOTE_FINDER", "quotefinder.quoteanswer.system:QUOTE_ANSWER",
            "quotefinder.oneshot.system:ONE_SHOT")

_systems: dict[str, System] = {}
_loaded: set[str] = set()  # what has been loaded: "built-in", "plugins"


def register(plugin: System) -> System:
    """Add a system (returned, so that it can decorate an assignment); `ValueError` when another system already
    has its name."""
    held = _systems.get(plugin.name)
    if held is not None and held is not plugin:
        raise ValueError(f"a system named {plugin.name!r} is already registered")
    _systems[plugin.name] = plugin
    return plugin


def unregister(name: str) -> None:
    """Remove a system registered in this process (nothing when there is none of that name)."""
    _systems.pop(name, None)


def _load(plugins: bool) -> None:
    """The built-in systems, once; with `plugins`, then the installed plugins', once. Scanning the installed
    packages' entry points costs tens of milliseconds, so a run of a built-in system never does it."""
    if "built-in" not in _loaded:
        _loaded.add("built-in")
        for spec in BUILT_IN:
            module, attribute = spec.split(":")
            register(getattr(importlib.import_module(module), attribute))
    if not plugins or "plugins" in _loaded:
        return
    _loaded.add("plugins")
    for point in sorted(entry_points(group=GROUP), key=lambda point: point.name):
        try:
            plugin = point.load()
        except Exception as error:  # a broken plugin names itself, never a traceback
            raise InputError(f"the system plugin {point.name!r} ({point.value}) cannot be loaded: "
                             f"{type(error).__name__}: {error}; fix or uninstall its package") from None
        if getattr(plugin, "name", None) != point.name:
            raise InputError(f"the system plugin {point.name!r} ({point.value}) is named "
                             f"{getattr(plugin, 'name', None)!r}; an entry point's name is its system's name")
        register(plugin)


def known_systems() -> tuple[str, ...]:
    """The names of the systems, the default first."""
    _load(plugins=True)
    return tuple(_systems)


def system(name: str = DEFAULT_SYSTEM) -> System:
    """The system of that name; `KeyError` naming the known ones otherwise."""
    _load(plugins=False)
    if name not in _systems:
        _load(plugins=True)
    if name not in _systems:
        raise KeyError(f"unknown system {name!r}; the systems are: {', '.join(_systems)}")
    return _systems[name]


def is_known(name: object) -> bool:
    """Whether `name` names a system (installed plugins are looked for only when no other has it)."""
    if not isinstance(name, str):
        return False
    try:
        system(name)
    except KeyError:
        return False
    return True


def axis_spec(chosen: System, name: str) -> AxisSpec:
    """One of a system's axes by its name; `KeyError` naming its axes otherwise."""
    for spec in chosen.axes:
        if spec.name == name:
            return spec
    raise KeyError(f"{chosen.name} has no axis {name!r}; its axes are: {', '.join(s.name for s in chosen.axes)}")
