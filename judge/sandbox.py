"""Isolation: every backend call runs in a child process that may die without taking the run along.

``IsolatedBackend`` wraps a registered backend. Its ``run`` ships the call to a ``Sandbox`` (a
child running ``judge.sandbox_worker``) and waits at most a timeout. A child that dies (abort,
segfault, killed for memory) or does not answer in time raises ``BackendDied``; the child is
killed, and the next call starts a fresh one. Availability probes go through the same children
(``probe``), so a driver that aborts inside ``available()`` only ends its probe.

``BackendDied`` derives from ``BaseException`` on purpose: the executor turns an ordinary
exception from a kernel into a "raised" finding and Hypothesis shrinks ordinary exceptions by
running the kernel again and again; a dead worker must end the item at once instead.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from judge.api import Backend

STARTUP_TIMEOUT = 180.0  # importing a GPU library and opening its device can take a while
BASE_TIMEOUT = 60.0  # per call, plus PER_ELEMENT seconds per element of the call
PER_ELEMENT = 1e-4


class BackendDied(BaseException):
    """A backend's worker died or hung; ``check`` is ``crash`` or ``timeout`` (``unavailable``:
    a worker that could not build the backend at all)."""

    def __init__(self, check: str, reason: str) -> None:
        super().__init__(reason)
        self.check, self.reason = check, reason


class BackendRaised(Exception):
    """A kernel raised in its worker; ``str()`` is the worker's one-line exception text."""


@dataclass(frozen=True)
class BackendSpec:
    """How a child rebuilds a backend: by name from its own registry, else by unpickling."""

    name: str
    plugins: tuple[str, ...] = ()
    pickled: bytes | None = None
    sys_path: tuple[str, ...] = ()


def spec_of(backend: Backend, plugins: tuple[str, ...] = ()) -> BackendSpec:
    try:
        pickled = pickle.dumps(backend)
    except Exception:  # noqa: BLE001 - the child may still find it by name
        pickled = None
    return BackendSpec(backend.name, tuple(plugins), pickled, tuple(sys.path))


def default_timeout(call) -> float:
    """A hang detector, not a speed check: generous, and longer for larger calls."""
    elements = sum(t.size for t in call.inputs) + sum(t.size for t in call.outputs)
    return BASE_TIMEOUT + PER_ELEMENT * elements


def exit_text(returncode: int | None) -> str:
    """"SIGABRT (signal 6)" for a child killed by a signal, "exit status 3" otherwise."""
    if returncode is None:
        return "no exit status"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal"
        return f"{name} (signal {-returncode})"
    return f"exit status {returncode}"


class Sandbox:
    """One child process serving one backend's calls."""

    def __init__(self, spec: BackendSpec, env: dict[str, str] | None = None) -> None:
        self.spec, self.env = spec, env
        self.proc: subprocess.Popen | None = None
        self.conn = None
        self._stderr = None
        self._contracts: set = set()

    # -- lifecycle --------------------------------------------------------------------------
    def spawn(self) -> None:
        """Start the child and send it the backend to build (does not wait)."""
        from multiprocessing.connection import Connection

        ours, theirs = socket.socketpair()
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "judge.sandbox_worker", str(theirs.fileno())],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=self._stderr,
            stderr=self._stderr, env=self.env, close_fds=True,
        )
        theirs.close()
        self.conn = Connection(ours.detach())
        self._contracts = set()
        self.conn.send(("init", self.spec))

    def ready(self, timeout: float = STARTUP_TIMEOUT) -> tuple:
        """Wait for the child's answer to ``init``: ("ready", describe, fingerprint),
        ("unavailable", why) or ("unbuildable", why)."""
        return self._receive(timeout, "while starting")

    def start(self) -> None:
        self.spawn()
        kind, text, *_ = self.ready()
        if kind != "ready":
            self.close()
            raise BackendDied("unavailable", f"{self.spec.name} is unavailable in its worker process: {text}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.conn is not None:
            self.conn.close()
        if self._stderr is not None:
            self._stderr.close()
        self.proc = self.conn = self._stderr = None

    # -- calls ------------------------------------------------------------------------------
    def call(self, contract, call, timeout: float):
        """Run ``call`` in the child; copy back what it did to the buffers; return its result."""
        (result, _), = self.calls(contract, [call], [timeout])
        if isinstance(result, BackendRaised):
            raise result
        return result

    def calls(self, contract, calls, timeouts) -> list[tuple[object, float]]:
        """Run ``calls`` in the child in one round trip, each within its timeout; copy back what
        each did to its buffers. Returns each one's (result or ``BackendRaised``, seconds)."""
        import numpy as np

        if not self.alive():
            self.start()
        key = (contract.file, contract.kernel, contract.revision)
        first = key not in self._contracts
        if first:
            self.conn.send(("contract", key, contract))
            self._contracts.add(key)
        from judge.guards import for_wire, storage

        self.conn.send(("run", key, [for_wire(c) for c in calls]))
        if first:  # unpickling a contract's first calls may import modules: their timeouts
            # count from the worker's "started" (later calls unpickle in microseconds)
            self._receive(STARTUP_TIMEOUT, "while receiving a kernel call")
        done, lost = [], False
        for call, timeout in zip(calls, timeouts, strict=True):
            kind, result, in_bases, out_bases, seconds = self._receive(timeout, "during a kernel call")
            if in_bases is not None:
                for here, there in zip(storage(call), [*in_bases, *out_bases], strict=True):
                    np.copyto(here, there, casting="no")  # a guarded base comes back with its zone
            lost = lost or kind == "raised_lost"
            done.append((BackendRaised(result) if kind in ("raised", "raised_lost") else result, seconds))
        if lost:  # the device context is gone in that worker: the next call gets a fresh one
            self.close()
        return done

    def _receive(self, timeout: float, doing: str):
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
        except (EOFError, OSError):
            pass
        else:
            if self.alive():  # silent, not dead: a hang
                self.close()
                raise BackendDied("timeout", f"{self.spec.name}: timed out after {timeout:g} s "
                                             f"{doing} (its worker was killed)")
        returncode = self.proc.wait() if self.proc is not None else None
        words = self._last_words()
        self.close()
        raise BackendDied("crash", f"{self.spec.name}: its worker died with {exit_text(returncode)} "
                                   f"{doing}" + (f"; it said: {words}" if words else ""))

    def _last_words(self, lines: int = 4) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(max(0, os.fstat(self._stderr.fileno()).st_size - 4000))
        text = self._stderr.read().decode(errors="replace")
        tail = [ln.strip() for ln in text.splitlines() if ln.strip()][-lines:]
        return " | ".join(tail)


class IsolatedBackend(Backend):
    """A registered backend whose calls run in a sandbox; everything else is answered here."""

    def __init__(self, inner: Backend, spec: BackendSpec, describe: str, *,
                 timeout: float | None = None, env: dict[str, str] | None = None,
                 fingerprint: dict[str, str] | None = None) -> None:
        self.inner, self.spec, self._describe = inner, spec, describe
        self._fingerprint = dict(fingerprint or {})
        self.name, self.device = inner.name, inner.device
        self.timeout, self.env = timeout, env
        self._sandbox: Sandbox | None = None

    def available(self) -> bool | str:
        return True

    def describe(self) -> str:
        return self._describe

    def fingerprint(self) -> dict[str, str]:
        return dict(self._fingerprint)

    def supports(self, contract, dtypes):
        return self.inner.supports(contract, dtypes)

    def run(self, contract, call):
        return self._started().call(contract, call, self.timeout or default_timeout(call))

    def run_many(self, contract, calls):
        """Each call's (result or ``BackendRaised``, seconds in the worker), in one round trip."""
        return self._started().calls(contract, calls, [self.timeout or default_timeout(c) for c in calls])

    def _started(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = Sandbox(self.spec, self.env)
            _LIVE.append(self._sandbox)
        return self._sandbox

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()

    def __getstate__(self):
        # What a harness worker needs to run items: no live child, and not the adapter object
        # either (its class may live in a plugin file the worker has not loaded); its spec
        # rebuilds it in the sandbox. ``supports`` is answered where the plan is made.
        state = dict(self.__dict__)
        state["_sandbox"] = state["inner"] = None
        return state


def probe(backends: list[Backend], plugins: tuple[str, ...] = (),
          timeout: float = STARTUP_TIMEOUT) -> dict[str, tuple[bool, str, bool, dict]]:
    """{name: (available, describe or why not, isolated, fingerprint)}, each probed in a child
    (so the fingerprint is taken under the environment the backend's calls run in), all at once.

    A backend a child cannot rebuild (neither registered there nor picklable, such as a class
    defined inside a function) is probed here instead and runs in this process: ``isolated``
    is False for it.
    """
    started = []
    for backend in backends:
        sandbox = Sandbox(spec_of(backend, plugins))
        sandbox.spawn()
        started.append((backend, sandbox))
    out = {}
    for backend, sandbox in started:
        try:
            kind, text, *facts = sandbox.ready(timeout)
        except BackendDied as died:
            kind, text, facts = "unavailable", f"the availability probe failed: {died.reason}", []
        finally:
            sandbox.close()
        out[backend.name] = (_in_process(backend) if kind == "unbuildable"
                             else (kind == "ready", text, True, facts[0] if facts else {}))
    return out


def _in_process(backend: Backend) -> tuple[bool, str, bool, dict]:
    from judge.fingerprint import of_backend

    try:
        ok = backend.available()
    except Exception as exc:  # noqa: BLE001
        return False, f"available() raised {type(exc).__name__}: {exc}", False, {}
    if ok is not True:
        return False, str(ok), False, {}
    return True, f"{backend.describe()} (in process: no worker can rebuild it)", False, of_backend(backend)


_LIVE: list[Sandbox] = []


def close_all() -> None:
    """Kill every sandbox this process started (they also exit when this process goes away)."""
    while _LIVE:
        _LIVE.pop().close()
