"""Finding and loading plugins, each on its own, into a :class:`BotRegistry` (docs/plugins.md).

A plugin is third-party code: each is loaded and checked inside one ``try``, so a broken one is
skipped and reported (hence entry points one by one: pluggy's loader stops at the first failure).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import inspect
import os
import re
import sys
import traceback
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from druids_p2p import hookspecs
from druids_p2p.bots import builtin_plugins
from druids_p2p.bots.host import Bot, BotFactory, BotSpec

ENTRY_POINT_GROUP = "druids_p2p.bots"
ENV_VAR = "DRUIDS_PLUGINS"
BOT_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
BOT_NAME_RULE = "[a-z0-9][a-z0-9_-]{0,31}"
BUILTIN_SOURCE = "built-in"
HOOK_NAMES = ("druids_register_bots",)


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that was skipped, and why (one line)."""

    plugin: str
    error: str
    source: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"plugin": self.plugin, "error": self.error}


@dataclass(frozen=True)
class LoadedPlugin:
    """A plugin that loaded, with what it registered."""

    name: str
    source: str
    bots: tuple[str, ...]


class PluginLoadError(Exception):
    """Raised by :func:`load_bots` with ``strict=True`` if any plugin failed; a one-line message."""

    def __init__(self, failures: Sequence[PluginFailure]) -> None:
        first = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        super().__init__(f"plugin {first.plugin!r} failed to load: {first.error}{more}")
        self.failures = list(failures)


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe_exception(exc: BaseException, origin: str | None = None) -> str:
    """``Type: message``, plus the plugin's own line that raised when we know the plugin file."""
    message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if origin is not None and not isinstance(exc, SyntaxError):
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == origin]
        if frames:
            message += f" (line {frames[-1].lineno})"
    return _one_line(message)


def _short_repr(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


class _Collector:
    """The ``register`` callbacks handed to one plugin: record, never raise into plugin code."""

    def __init__(self) -> None:
        self.specs: list[BotSpec] = []
        self.errors: list[str] = []

    def register_bot(
        self,
        spec: BotSpec | None = None,
        /,
        *,
        name: str | None = None,
        factory: BotFactory | None = None,
        version: str = "0",
        description: str = "",
    ) -> None:
        if spec is None:
            if name is None or factory is None:
                self.errors.append("register() needs a BotSpec, or name= and factory=")
                return
            spec = BotSpec(name=name, factory=factory, version=version, description=description)
        elif name is not None or factory is not None:
            self.errors.append("register() takes a BotSpec or keywords, not both")
            return
        elif not isinstance(spec, BotSpec):
            self.errors.append(
                f"registered {_short_repr(spec)} ({type(spec).__name__}), not a BotSpec"
            )
            return
        self.specs.append(spec)


def validate_spec(spec: BotSpec) -> str | None:
    """None if ``spec`` may be registered (uniqueness aside), else why not."""
    name = spec.name
    if not isinstance(name, str) or not BOT_NAME_RE.match(name):
        return f"invalid bot name {_short_repr(name)}: names are {BOT_NAME_RULE}"
    if not callable(spec.factory):
        return f"bot {name!r}: factory {_short_repr(spec.factory)} is not callable"
    if not isinstance(spec.version, str):
        return f"bot {name!r}: version must be a string, not {type(spec.version).__name__}"
    if not isinstance(spec.description, str):
        return f"bot {name!r}: description must be a string"
    return None


def new_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    return pm


class BotRegistry:
    """The bots of every plugin that loaded, and the failures."""

    def __init__(self) -> None:
        self.pm = new_plugin_manager()
        self.bots: dict[str, BotSpec] = {}
        """Name -> spec (with ``source`` set), in load order."""
        self.failed: list[PluginFailure] = []
        self.plugins: list[LoadedPlugin] = []
        self._owner: dict[str, str] = {}

    # ---------------------------------------------------------------- queries
    def names(self) -> list[str]:
        return list(self.bots)

    def __contains__(self, name: object) -> bool:
        return name in self.bots

    def get(self, name: str) -> BotSpec:
        """The spec of bot ``name``; KeyError with the known names otherwise."""
        try:
            return self.bots[name]
        except KeyError:
            known = ", ".join(self.bots) or "none"
            raise KeyError(f"unknown bot {name!r} (known: {known})") from None

    def make(self, name: str) -> Bot:
        """A new bot from ``name``'s factory; TypeError if the factory does not return a Bot."""
        spec = self.get(name)
        bot = spec.factory()
        if not isinstance(bot, Bot):
            raise TypeError(f"bot {name!r}: factory returned {type(bot).__name__}, not a Bot")
        return bot

    def as_dict(self) -> dict[str, list[dict[str, Any]]]:
        """The ``druids bots --json`` document."""
        return {
            "bots": [
                {
                    "name": s.name,
                    "version": s.version,
                    "source": s.source,
                    "description": s.about(),
                    "games": list(s.games),
                }
                for s in self.bots.values()
            ],
            "failed": [f.as_dict() for f in self.failed],
        }

    # ---------------------------------------------------------------- loading
    def fail(self, plugin: str, error: str, source: str = "") -> None:
        self.failed.append(PluginFailure(plugin, _one_line(error), source))

    def add_plugin(self, plugin: object, name: str, source: str) -> bool:
        """Register one plugin object and commit what it registers; False (and reported) if not.

        Nothing the plugin registered is kept unless all of it is valid.
        """
        if any(p.name == name for p in self.plugins):
            self.fail(name, f"another plugin named {name!r} is already loaded", source)
            return False
        key = f"{name}@{source}"
        try:
            self.pm.register(plugin, name=key)
        except Exception as exc:
            self.fail(name, f"not a valid plugin: {_describe_exception(exc)}", source)
            return False
        try:
            error = self._collect(plugin, name, source)
        except (Exception, SystemExit) as exc:
            error = _describe_exception(exc, _sourcefile(plugin))
        if error is not None:
            self.pm.unregister(name=key)
            self.fail(name, error, source)
            return False
        return True

    def _collect(self, plugin: object, name: str, source: str) -> str | None:
        callers = self.pm.get_hookcallers(plugin) or []
        unknown = sorted(c.name for c in callers if c.name not in HOOK_NAMES)
        if unknown:
            return f"implements unknown hook {unknown[0]!r} (known: {', '.join(HOOK_NAMES)})"
        if not callers:
            return (
                "implements no druids hook (mark druids_register_bots with "
                "@hookimpl from druids_p2p.hookspecs)"
            )
        others = [p for p in self.pm.get_plugins() if p is not plugin]
        collector = _Collector()
        self.pm.subset_hook_caller("druids_register_bots", remove_plugins=others)(
            register=collector.register_bot
        )
        if collector.errors:
            return collector.errors[0]
        seen: set[str] = set()
        for spec in collector.specs:
            problem = validate_spec(spec)
            if problem is not None:
                return problem
            if spec.name in self.bots:
                other = self._owner[spec.name]
                return f"bot name {spec.name!r} is already registered by plugin {other!r}"
            if spec.name in seen:
                return f"registers bot {spec.name!r} twice"
            seen.add(spec.name)
        # Everything is valid: commit.
        for spec in collector.specs:
            self.bots[spec.name] = dataclasses.replace(spec, source=source)
            self._owner[spec.name] = name
        self.plugins.append(
            LoadedPlugin(
                name,
                source,
                tuple(s.name for s in collector.specs),
            )
        )
        return None


# ------------------------------------------------------------- in-process registration
_REGISTERED: dict[str, object] = {}


def register_plugin(plugin: object, name: str) -> None:
    """Make every later :func:`load_bots` include ``plugin`` (a module or object with hookimpls).

    For tests and programs embedding druids-p2p; undo with :func:`unregister_plugin`.
    """
    if name in _REGISTERED:
        raise ValueError(f"a plugin named {name!r} is already registered")
    _REGISTERED[name] = plugin


def unregister_plugin(name: str) -> object:
    """Undo :func:`register_plugin`; returns the plugin."""
    return _REGISTERED.pop(name)


# ------------------------------------------------------------------------- sources
def plugin_filter(env: Mapping[str, str] | None = None) -> frozenset[str] | None:
    """The plugin names ``DRUIDS_PLUGINS`` allows, or None for all."""
    value = (os.environ if env is None else env).get(ENV_VAR, "")
    names = frozenset(part.strip() for part in value.split(",") if part.strip())
    if not names:
        return None
    if names == {"none"}:
        return frozenset()
    return names


def default_plugin_dirs() -> list[Path]:
    """``./plugins``, and the checkout's ``plugins/`` when druids_p2p runs from a source tree."""
    dirs = [Path.cwd() / "plugins"]
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "druids_p2p" / "__init__.py").is_file():
        dirs.append(root / "plugins")
    return dirs


def _entry_points() -> Iterator[importlib.metadata.EntryPoint]:
    seen: set[tuple[str, str]] = set()
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=_ep_key):
        if (ep.name, ep.value) in seen:
            continue  # the same distribution found twice on sys.path
        seen.add((ep.name, ep.value))
        yield ep


def _ep_key(ep: importlib.metadata.EntryPoint) -> tuple[str, str]:
    return (ep.name, ep.value)


def _package_source(ep: importlib.metadata.EntryPoint) -> str:
    dist = ep.dist
    if dist is None:
        return f"package ? ({ep.value})"
    return f"package {dist.metadata['Name'] or dist.name} {dist.version}"


def _import_file(path: Path) -> ModuleType:
    """Import one plugin file under a module name unique to its path."""
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module_name = f"druids_plugin_{re.sub(r'[^0-9a-zA-Z_]', '_', path.stem)}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up here
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _plugin_files(dirs: Iterable[Path]) -> Iterator[Path]:
    seen: set[Path] = set()
    for folder in dirs:
        try:
            resolved = folder.resolve()
        except OSError:
            continue
        if resolved in seen or not resolved.is_dir():
            continue
        seen.add(resolved)
        for path in sorted(resolved.glob("*.py")):
            if not path.name.startswith("_"):
                yield path


# ------------------------------------------------------------------------- loading
def builtin_registry() -> BotRegistry:
    """Only the built-in bots: no plugin code runs."""
    registry = BotRegistry()
    for name, plugin in builtin_plugins():
        registry.add_plugin(plugin, name, BUILTIN_SOURCE)
    return registry


def load_bots(
    plugins_dirs: Sequence[str | os.PathLike[str]] = (),
    strict: bool = False,
    *,
    default_dirs: bool = True,
    entry_points: bool = True,
    env: Mapping[str, str] | None = None,
    files: Sequence[Path] = (),
) -> BotRegistry:
    """Load the built-ins and every allowed plugin; report and skip the ones that fail.

    ``strict=True`` raises :class:`PluginLoadError` if anything failed; ``env``, ``default_dirs``,
    ``entry_points`` and ``files`` replace the sources (tests; a cluster worker's shipped files).
    """
    registry = builtin_registry()
    allowed = plugin_filter(env)

    def wanted(*names: str) -> bool:
        return allowed is None or any(n in allowed for n in names)

    for name, plugin in list(_REGISTERED.items()):
        registry.add_plugin(plugin, name, f"registered {name}")

    if entry_points and allowed != frozenset():
        for ep in _entry_points():
            dist_name = ep.dist.name if ep.dist is not None else ""
            if not wanted(ep.name, dist_name):
                continue
            source = _package_source(ep)
            try:
                obj = ep.load()
                if inspect.isclass(obj):
                    obj = obj()
            except (Exception, SystemExit) as exc:
                registry.fail(ep.name, _describe_exception(exc), source)
                continue
            registry.add_plugin(obj, ep.name, source)

    dirs = [Path(d) for d in plugins_dirs]
    for folder in dirs:
        if not folder.is_dir():
            registry.fail(str(folder), "no such plugins directory", f"dir {folder}")
    if default_dirs:
        dirs = default_plugin_dirs() + dirs
    if allowed != frozenset():
        for path in [*_plugin_files(dirs), *files]:
            if not wanted(path.stem):
                continue
            source = f"file {path}"
            try:
                module = _import_file(path)
            except (Exception, SystemExit) as exc:
                registry.fail(path.stem, _describe_exception(exc, str(path)), source)
                continue
            registry.add_plugin(module, path.stem, source)

    if strict and registry.failed:
        raise PluginLoadError(registry.failed)
    return registry


def _sourcefile(obj: object) -> str | None:
    """The file a plugin module or object was defined in (to point at the line that raised)."""
    try:
        target = obj if inspect.ismodule(obj) else type(obj)
        return inspect.getsourcefile(target)
    except (TypeError, OSError):
        return None
