"""The backend registry: built-ins, entry points, ``--plugin`` and ``JUDGE_PLUGINS`` (SPEC §5).

Nothing is loaded at import time; ``default_registry().load_all()`` does the work once.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from judge.api import Backend

DEVICE_CLASSES = ("cpu", "cuda", "vulkan")

# Built-in adapters: (module, attribute that returns a list of Backend instances).
BUILTIN_BACKENDS = (
    ("backends.numpy_backend", "backends"),
    ("backends.torch_backend", "backends"),
    ("backends.cupy_backend", "backends"),
    ("backends.kompute", "backends"),
)


class BackendSelectionError(Exception):
    """A requested backend is unknown or unavailable (exit code 2)."""


@dataclass
class Registry:
    backends: dict[str, Backend] = field(default_factory=dict)
    load_errors: dict[str, str] = field(default_factory=dict)  # source -> why it failed to load
    plugins: tuple[str, ...] = ()  # the plugin specs loaded by name or path (workers load them too)
    # name -> (available, describe or why not, runs in a sandbox, fingerprint)
    probed: dict[str, tuple[bool, str, bool, dict]] = field(default_factory=dict)
    _loaded: bool = False

    def register(self, backend: Backend) -> None:
        if not isinstance(backend, Backend):
            raise TypeError(f"{backend!r} is not a judge.Backend")
        if not backend.name:
            raise ValueError(f"{type(backend).__name__} has no name")
        if backend.device not in DEVICE_CLASSES:
            raise ValueError(
                f"backend {backend.name!r}: device {backend.device!r} is not one of {DEVICE_CLASSES}"
            )
        existing = self.backends.get(backend.name)
        if existing is not None and type(existing) is not type(backend):
            raise ValueError(f"backend name {backend.name!r} is already registered")
        self.backends[backend.name] = backend

    def load_all(self, plugins: tuple[str, ...] = ()) -> Registry:
        """Load built-ins, entry points, JUDGE_PLUGINS and the given plugins (idempotent)."""
        if not self._loaded:
            self._loaded = True
            for module, attr in BUILTIN_BACKENDS:
                try:
                    mod = importlib.import_module(module)
                except ImportError as exc:  # the adapter module itself is missing
                    self.load_errors[module] = f"cannot import {module}: {exc}"
                    continue
                for backend in getattr(mod, attr)():
                    self.register(backend)
            self._load_entry_points()
            env = os.environ.get("JUDGE_PLUGINS", "")
            for spec in filter(None, (s.strip() for s in env.split(","))):
                load_plugin(spec)
        for spec in plugins:
            load_plugin(spec)
            resolved = str(Path(spec).resolve()) if spec.endswith(".py") else spec
            if resolved not in self.plugins:
                self.plugins += (resolved,)
        return self

    def _load_entry_points(self) -> None:
        from importlib.metadata import entry_points

        for ep in entry_points(group="judge.backends"):
            try:
                obj = ep.load()
            except Exception as exc:  # noqa: BLE001 - a broken plugin must be reported, not fatal
                self.load_errors[f"entry point {ep.name}"] = f"{type(exc).__name__}: {exc}"
                continue
            _register_loaded(obj)

    def availability(self, names: list[str] | None = None) -> dict[str, bool | str]:
        """Whether each named backend (default: all) can run here, probed in child processes
        once per run: a driver that aborts inside ``available()`` cannot take this process along."""
        from judge.sandbox import probe

        names = sorted(self.backends) if names is None else names
        todo = [self.backends[n] for n in names if n not in self.probed]
        if todo:
            self.probed.update(probe(todo, self.plugins))
        return {n: True if self.probed[n][0] else self.probed[n][1] for n in names}

    def describe(self, name: str) -> str:
        """The probed backend's own description (library versions, device)."""
        ok, text, *_ = self.probed.get(name, (False, "", True, {}))
        return text if ok else name

    def fingerprint(self, name: str) -> dict[str, str]:
        """The probed backend's environment fingerprint (``judge.fingerprint``)."""
        ok, _, _, facts = self.probed.get(name, (False, "", True, {}))
        return dict(facts) if ok else {}

    def handle(self, name: str, *, timeout: float | None = None, env: dict[str, str] | None = None) -> Backend:
        """The backend ``name`` as the harness uses it: its calls run in a sandbox."""
        from judge.sandbox import IsolatedBackend, spec_of

        self.availability([name])
        backend = self.backends[name]
        if not self.probed[name][2]:  # no child can rebuild it
            return backend
        return IsolatedBackend(backend, spec_of(backend, self.plugins), self.describe(name),
                               timeout=timeout, env=env, fingerprint=self.fingerprint(name))

    def select(self, requested: tuple[str, ...], *, strict: bool = True, isolate: bool = True,
               timeout: float | None = None) -> tuple[list[Backend], dict[str, str]]:
        """Resolve ``--backend`` values to backends.

        Returns (selected available backends, {name: why unavailable}). Only the backends asked
        for are probed. A backend requested by name or device class that is unavailable raises
        ``BackendSelectionError`` when ``strict``; ``all`` takes what is available and lists the
        rest. With ``isolate`` (the default) each selected backend runs its calls in a sandbox
        with the given per-call ``timeout`` (default: derived from each call's size).
        """
        wanted = [(req, names, must) for req in requested or ("all",)
                  for names, must in [self._resolve(req)]]
        avail = self.availability(sorted({n for _, names, _ in wanted for n in names}))
        chosen: list[Backend] = []
        missing: dict[str, str] = {}
        for req, names, must in wanted:
            for name in names:
                ok = avail[name]
                if ok is True:
                    if all(b.name != name for b in chosen):
                        chosen.append(self.handle(name, timeout=timeout) if isolate else self.backends[name])
                else:
                    missing[name] = str(ok)
                    if must and strict:
                        raise BackendSelectionError(
                            f"backend {name!r} requested by --backend={req} is unavailable: {ok}"
                        )
        return chosen, missing

    def _resolve(self, req: str) -> tuple[list[str], bool]:
        """The backend names one ``--backend`` value stands for, and whether each must be there."""
        if req == "all":
            return sorted(self.backends), False
        if req in DEVICE_CLASSES:
            names = sorted(n for n, b in self.backends.items() if b.device == req)
            if not names:
                raise BackendSelectionError(f"no backend is registered for device class {req!r}")
            return names, True
        if req in self.backends:
            return [req], True
        known = ", ".join(sorted(self.backends)) or "none"
        extra = "".join(f"\n  {k}: {v}" for k, v in self.load_errors.items())
        raise BackendSelectionError(
            f"unknown backend {req!r} (registered: {known}; or cpu, cuda, vulkan, all){extra}"
        )


def register_backend(backend: Backend) -> Backend:
    """Register a backend instance with the process-wide registry (``judge.register_backend``)."""
    default_registry().register(backend)
    return backend


def _register_loaded(obj) -> None:
    reg = default_registry()
    if isinstance(obj, Backend):
        reg.register(obj)
    elif isinstance(obj, type) and issubclass(obj, Backend):
        reg.register(obj())
    elif callable(obj):
        result = obj()
        for b in result if isinstance(result, (list, tuple)) else [result] if result else []:
            reg.register(b)


def load_plugin(spec: str) -> None:
    """Import a plugin module by dotted name or by file path; it registers its backends."""
    path = Path(spec)
    if spec.endswith(".py") or path.exists():
        if not path.is_file():
            raise BackendSelectionError(f"plugin file {spec!r} does not exist")
        # The same name in every process, so a backend class from this file pickles across them.
        name = "judge_plugin_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:16]
        if name in sys.modules:
            return
        loader_spec = importlib.util.spec_from_file_location(name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise BackendSelectionError(f"cannot load plugin file {spec!r}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
    else:
        try:
            importlib.import_module(spec)
        except ImportError as exc:
            raise BackendSelectionError(f"cannot import plugin module {spec!r}: {exc}") from exc


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Registry()
    return _DEFAULT
