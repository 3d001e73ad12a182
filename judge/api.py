"""The plugin API (SPEC §5): what a backend adapter sees and implements.

Everything a built-in backend uses is here, so an external backend has exactly the same powers.
A backend is registered with ``judge.register_backend`` (``judge.registry``).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from judge.contracts.model import Contract


@dataclass(frozen=True)
class TensorArg:
    """A logical tensor as a strided view over a flat base buffer.

    ``base`` is a 1-D numpy array holding the storage, ``shape`` the logical shape, ``strides``
    the element strides (0 for broadcast axes, negative only where the contract accepts reverse
    strides) and ``offset`` the element index of logical element ``(0, ..., 0)``. ``dtype`` is the
    FKC dtype name (``"F32"``, ``"BF16"``, ...).
    """

    base: np.ndarray
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    dtype: str

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_contiguous(self) -> bool:
        """Row-major contiguous with no offset."""
        return self.offset == 0 and self.strides == contiguous_strides(self.shape)

    def view(self) -> np.ndarray:
        """A read-only numpy view with this shape, strides and offset (no copy)."""
        if self.size == 0:
            return np.empty(self.shape, dtype=self.base.dtype)
        item = self.base.itemsize
        # as_strided from the first logical element; negative strides reach back into base.
        return np.lib.stride_tricks.as_strided(
            self.base[self.offset:],
            shape=self.shape,
            strides=tuple(s * item for s in self.strides),
            writeable=False,
        )

    def to_array(self) -> np.ndarray:
        """A fresh contiguous copy of the logical tensor."""
        return np.array(self.view(), order="C", copy=True)  # keeps rank 0 (ascontiguousarray would not)


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


@dataclass
class KernelCall:
    """One invocation of a kernel: inputs, op params and pre-allocated outputs.

    ``outputs`` are contiguous, poison-filled ``TensorArg`` buffers. A backend either writes into
    ``outputs[i].base`` (in place) or returns replacement arrays from ``Backend.run``.
    """

    inputs: list[TensorArg]
    params: dict[str, Any]
    outputs: list[TensorArg]
    output_dtypes: list[str] = field(default_factory=list)
    case_id: str = ""
    #: The executor's guard zones (``judge.guards``), one per input then output (None: not
    #: guarded); backends ignore it: each base already lies inside its zone.
    zones: list = field(default_factory=list)


class Backend(abc.ABC):
    """Base class of every backend adapter (built-in or plugin)."""

    name: str = ""
    device: str = ""  # cpu | cuda | vulkan
    #: ``"dlpack"`` when ``run`` also takes device-resident calls: every ``TensorArg.base``
    #: (inputs and outputs) is then a 1-D array on this backend's device that exports
    #: ``__dlpack__``, and ``run`` returns such arrays. The exhaustive F32 sweeps use it to keep
    #: 2^32 inputs on the GPU; every other call carries numpy buffers as usual.
    device_arrays: str | None = None

    def available(self) -> bool | str:
        """True, or a string saying why this backend cannot run here."""
        return True

    @abc.abstractmethod
    def supports(self, contract: Contract, dtypes: tuple[str, ...]) -> bool | str:
        """True if this adapter can run ``contract`` with input dtypes ``dtypes``, else why not."""

    @abc.abstractmethod
    def run(self, contract: Contract, call: KernelCall) -> list[np.ndarray]:
        """Run the kernel; return one array per output (contiguous, output shape and dtype)."""

    def describe(self) -> str:
        """One line naming library versions and the device, for run headers."""
        return self.name

    def fingerprint(self) -> dict[str, str]:
        """Optional: what decides this backend's bits, as ``{key: text}`` with the keys of
        ``judge.fingerprint.KEYS`` (library versions, the instruction set it dispatched to, GPU,
        driver, Vulkan float controls). The host's CPU facts are added by the Judge. Known
        divergences are scoped on it (SPEC §8). Called once per run, in the backend's worker."""
        return {}

    def __repr__(self) -> str:
        return f"<Backend {self.name} ({self.device})>"

    def context_lost(self) -> bool:
        """Optional: asked in the backend's worker after ``run`` raised. True when that error
        left the device unusable for every later call of the process (CUDA's sticky errors: a
        device-side assert, an illegal address); the worker is then replaced before the next
        call, so one refused error input does not fail the calls after it. False, the default,
        keeps the worker."""
        return False

    def timed(self, contract: Contract, call: KernelCall) -> Any:
        """Optional, for ``judge measure`` (SPEC §12): ``call`` made ready to repeat with its
        operands already on the device, as a ``judge.measure.timed.TimedCall`` (which says how
        it synchronises and times). None, the default, times ``run`` end to end instead."""
        return None

    def timed_copy(self, nbytes: int) -> Any:
        """Optional: a plain device-to-device copy of ``nbytes`` bytes as a ``TimedCall``, the
        bandwidth roofline of ``judge measure``. None, the default, where there is none."""
        return None


def is_resident(arg: TensorArg) -> bool:
    """Whether ``arg`` is a device-resident argument (see ``Backend.device_arrays``)."""
    return not isinstance(arg.base, np.ndarray)


WINDOW_BYTES = 4096  # of the allocation around a base buffer that an adapter uploads with it


def allocation_window(base: np.ndarray, around: int = WINDOW_BYTES) -> tuple[np.ndarray, int]:
    """(bytes of the host allocation ``base`` lies in, from up to ``around`` bytes before it to up
    to ``around`` after; the byte offset of ``base`` in them).

    The executor places every base buffer between poisoned guards (``judge.guards``). An adapter
    that uploads this window rather than ``base`` alone gives the device the guards too: a kernel
    that reads past either end reads the poison there, and an in-place kernel's stray writes come
    back to the guards when the window is copied back. The window starts on a 64-byte boundary of
    the host address where it can (device allocations are at least that aligned), so a base the
    executor misaligned stays misaligned on the device. A base that is no view into a larger
    buffer is its own window.
    """
    raw = base.reshape(-1).view(np.uint8) if base.flags.c_contiguous else None
    owner = base
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if raw is None or owner.ndim != 1 or not owner.flags.c_contiguous:
        return (raw if raw is not None else np.ascontiguousarray(base).reshape(-1).view(np.uint8)), 0
    whole = owner.view(np.uint8)
    b0 = base.ctypes.data - whole.ctypes.data
    if b0 < 0 or b0 + base.nbytes > whole.nbytes:
        return raw, 0
    lo = max(0, b0 - around)
    aligned = lo + (-(whole.ctypes.data + lo)) % 64
    lo = aligned if aligned <= b0 else lo + (b0 - lo) % max(base.itemsize, 1)
    hi = min(whole.nbytes, b0 + base.nbytes + around)
    return whole[lo:hi], b0 - lo
