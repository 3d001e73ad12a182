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
