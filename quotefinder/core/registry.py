"""Which systems exist: the three this package ships, any a Python package declares in the entry point group
``quotefinder.systems`` (a team's own pipeline as its own package, found once installed), and any registered in
the process (`register`). Every layer asks here (`system`, `known_systems`); nothing else lists the systems.

A plugin package declares its system in its pyproject.toml::

    [project.entry-points."quotefinder.systems"]
    my-pipeline = "my_package.system:SYSTEM"

where ``SYSTEM`` is an object with the attributes and methods of `plugin.System`, named as its entry point is.

A plugin is someone else's code, loaded into the command: whatever it does while it loads (raise, call `sys.exit`,
return an object named otherwise, take a built-in's name, or a name that is not `NAME`: letters, digits, dots,
dashes) is refused as an `InputError` that names it inertly (exit 2), so that it can neither end the command nor
pass for a verdict (exit 1 is a failed gate's alone). What no Python code can stop (`os._exit`, a crash in C) is the
plugin's own to answer for.
"""

from __future__ import annotations

import importlib
import re
from importlib.metadata import entry_points

from .errors import InputError
from .plugin import AxisSpec, System
from .textsafe import SHOWN_AT_MOST, line, said, shown

DEFAULT_SYSTEM = "quote-finder"
GROUP = "quotefinder.systems"
# The systems this package ships, as "module:attribute", the default first: imported when first asked for, so
# that no system is imported by the core.
BUILT_IN = ("quotefinder.recipe.system:QUOTE_FINDER", "quotefinder.quoteanswer.system:QUOTE_ANSWER",
            "quotefinder.oneshot.system:ONE_SHOT")

NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")  # a system's name: it is written in run.json, paths and reports

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
    built_in = dict(zip(_systems, BUILT_IN, strict=False))  # (the built-ins are registered first, in order)
    for point in sorted(entry_points(group=GROUP), key=lambda point: str(point.name)):
        register(_plugin(point, built_in))
    _loaded.add("plugins")  # (only once all loaded: a broken plugin is said again each time it is asked for)


def _plugin(point: object, built_in: dict[str, str]) -> System:
    """The system an installed entry point declares, loaded and checked; `InputError` naming the plugin (inertly:
    `shown`) for anything else. A plugin that ends the process as it loads (`sys.exit`) is refused like one that
    raises."""
    name, value = getattr(point, "name", None), getattr(point, "value", None)
    which = f"the system plugin {shown(name)} ({line(str(value), SHOWN_AT_MOST)})"
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise InputError(f"{which} has a name that is not a system's (lower-case letters, digits, dots and dashes, "
                         "at most 64): rename its entry point, or uninstall its package")
    if name in built_in:
        raise InputError(f"{which} takes the name of the built-in system {shown(name)} ({built_in[name]}): "
                         "rename the plugin's entry point, or uninstall its package")
    try:
        plugin = point.load()  # type: ignore[attr-defined]
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # a broken plugin names itself, never a traceback or an exit
        what = f"it tried to end the process ({type(error).__name__}({said(error.code, SHOWN_AT_MOST)}))" if isinstance(
            error, SystemExit) else f"{type(error).__name__}: {said(error, SHOWN_AT_MOST)}"
        raise InputError(f"{which} cannot be loaded: {what}; fix or uninstall its package") from None
    if getattr(plugin, "name", None) != name:
        raise InputError(f"{which} is named {shown(getattr(plugin, 'name', None))}; an entry point's name is its "
                         "system's name")
    return plugin


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
