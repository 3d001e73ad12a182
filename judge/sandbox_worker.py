"""The child side of a sandbox: runs one backend's kernel calls for its parent (``judge.sandbox``).

Started as ``python -m judge.sandbox_worker FD`` with one end of a socket pair on ``FD``. The
parent sends pickled messages; the child answers each one. Whatever the kernel does to this
process (abort, segfault, hang, run out of memory) the parent sees as a dead or silent child, so it
can never take the run down. The child exits when its parent goes away.

Messages (parent → child → parent):
- ``("init", spec)`` → ``("ready", describe, fingerprint)``, ``("unavailable", why)`` or
  ``("unbuildable", why)`` (the child cannot rebuild the backend at all);
- ``("contract", key, contract)`` → nothing (cached for later calls);
- ``("run", key, calls)`` → ``("started",)`` once the calls are unpickled, for the first run
  after the contract arrived only (unpickling may import modules then), then for each call in
  turn ``("ok", result, input bases, output bases, seconds)`` or
  ``("raised", text, input bases, output bases, seconds)``; a base the executor guarded
  travels both ways inside its whole guard zone (``judge.guards``).
"""

from __future__ import annotations

import sys


def _backend(spec):
    """The backend ``spec`` names: from the child's own registry (plugins loaded), else unpickled."""
    import pickle

    from judge.registry import default_registry

    registry = default_registry().load_all(tuple(spec.plugins))
    backend = registry.backends.get(spec.name)
    if backend is None and spec.pickled is not None:
        backend = pickle.loads(spec.pickled)
    if backend is None:
        raise LookupError(f"backend {spec.name!r} is not registered in the worker "
                          f"(plugins: {', '.join(spec.plugins) or 'none'})")
    return backend


def _availability(backend) -> tuple:
    """``("ready", describe, fingerprint)`` or ``("unavailable", why)``."""
    from judge.fingerprint import of_backend

    try:
        ok = backend.available()
    except Exception as exc:  # noqa: BLE001 - a probe that raises says why in its own words
        return "unavailable", f"available() raised {type(exc).__name__}: {exc}"
    if ok is not True:
        return "unavailable", str(ok)
    try:
        text = str(backend.describe())
    except Exception as exc:  # noqa: BLE001
        text = f"{backend.name} (describe() raised {type(exc).__name__}: {exc})"
    try:
        facts = of_backend(backend)
    except Exception as exc:  # noqa: BLE001 - a fingerprint that cannot be taken says why
        facts = {"error": f"fingerprint() raised {type(exc).__name__}: {exc}"}
    return "ready", text, facts


def _run(backend, contract, call):
    import time
    import traceback

    from judge.guards import from_wire, storage

    call = from_wire(call)
    start = time.perf_counter()
    try:
        result = backend.run(contract, call)
    except Exception as exc:  # noqa: BLE001 - the parent turns it into a finding
        text = traceback.format_exception_only(type(exc), exc)[-1].strip()
        reply = ["raised", text]
        if _context_lost(backend):
            reply = ["raised_lost", text]
    else:
        import numpy as np

        reply = ["ok", None if result is None else [np.asarray(r) for r in result]]
    seconds = time.perf_counter() - start
    held = storage(call)  # guarded bases travel back inside their whole zones
    return (*reply, held[:len(call.inputs)], held[len(call.inputs):], seconds)


def _context_lost(backend) -> bool:
    """Whether the error just raised left the device unusable (``Backend.context_lost``; a
    backend without it keeps its worker)."""
    check = getattr(backend, "context_lost", None)
    if check is None:
        return False
    try:
        return bool(check())
    except Exception:  # noqa: BLE001 - a check that cannot run is taken as a lost context
        return True


def serve(conn) -> None:
    backend = None
    contracts: dict = {}
    fresh: set = set()  # contracts whose first run has not come yet
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        kind = message[0]
        if kind == "init":
            spec = message[1]
            sys.path[:0] = [p for p in spec.sys_path if p not in sys.path]
            try:
                backend = _backend(spec)
            except LookupError as exc:  # e.g. a class defined inside a function: runs in process
                conn.send(("unbuildable", str(exc)))
                continue
            except Exception as exc:  # noqa: BLE001
                conn.send(("unavailable", f"{type(exc).__name__}: {exc}"))
                continue
            conn.send(_availability(backend))
        elif kind == "contract":
            contracts[message[1]] = message[2]
            fresh.add(message[1])
        elif kind == "run":
            if message[1] in fresh:  # the calls' timeouts count from here, not from unpickling
                fresh.discard(message[1])
                conn.send(("started",))
            lost = False
            for call in message[2]:
                if lost:  # the rest of the batch cannot run here; the parent replaces the worker
                    conn.send(("raised_lost", "not run: an earlier call of the batch left the device "
                               "unusable (CUDA sticky error)", None, None, 0.0))
                    continue
                reply = _run(backend, contracts[message[1]], call)
                lost = reply[0] == "raised_lost"
                conn.send(reply)


def main(argv: list[str]) -> None:
    import socket
    from multiprocessing.connection import Connection

    sock = socket.socket(fileno=int(argv[1]))
    serve(Connection(sock.detach()))


if __name__ == "__main__":
    main(sys.argv)
