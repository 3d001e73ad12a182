"""The ``kompute`` backend adapter (device class ``vulkan``)."""

from __future__ import annotations

from functools import cache

import numpy as np

from backends.kompute import device
from backends.kompute.cast import CAST_LAUNCHERS, cast_support
from backends.kompute.launch import LAUNCHERS as _FAMILY_LAUNCHERS
from backends.kompute.ops import OPS
from backends.kompute.preflight import vulkan_problem
from judge.api import Backend, KernelCall

LAUNCHERS = {**_FAMILY_LAUNCHERS, **CAST_LAUNCHERS}


@cache
def _availability() -> bool | str:
    try:
        device.kp_module()
    except ImportError as exc:
        return f"kp (kompute) is not importable ({exc}); run scripts/install-vulkan.sh"
    problem = vulkan_problem()  # kp would abort the process on it, without a word
    if problem is not None:
        return problem
    try:
        device.device_name()
    except Exception as exc:  # noqa: BLE001 - kp raises RuntimeError or its own types
        return f"kp found no usable Vulkan device ({type(exc).__name__}: {exc})"
    return True


def _out_dtype(contract, dtypes: tuple[str, ...]) -> str:
    """The first output's dtype for inputs of ``dtypes``, by the contract's dtype rule."""
    if not contract.outputs:
        return dtypes[0] if dtypes else ""
    rule = contract.outputs[0].dtype_rule
    if rule.kind == "fixed":
        return rule.dtype
    names = [spec.name for spec in contract.inputs]
    return dtypes[names.index(rule.ref)] if rule.ref in names else dtypes[0]


class KomputeBackend(Backend):
    name = "kompute"
    device = "vulkan"

    def available(self) -> bool | str:
        return _availability()

    def describe(self) -> str:
        from importlib.metadata import PackageNotFoundError, version

        try:
            kp_version = version("kp")
        except PackageNotFoundError:
            kp_version = "?"
        ok = self.available()
        where = device.device_name() if ok is True else f"unavailable: {ok}"
        return f"kompute (kp {kp_version}, GLSL→SPIR-V) on {where}"

    def fingerprint(self) -> dict[str, str]:
        from importlib.metadata import PackageNotFoundError, version

        from backends.kompute.vkinfo import device_facts

        try:
            facts = {"kp": version("kp")}
        except PackageNotFoundError:
            facts = {}
        try:
            facts.update(device_facts())
        except (OSError, RuntimeError) as exc:  # the loader kp uses is there: say what failed
            facts["vulkan_device"] = device.device_name()
            facts["vulkan_driver"] = f"unknown ({exc})"
        return facts

    def supports(self, contract, dtypes: tuple[str, ...]) -> bool | str:
        entry = OPS.get(contract.op_kind or "")
        if entry is None:
            return f"no Vulkan kernel for op kind {contract.op_kind!r}"
        if entry.family == "cast":
            return cast_support(contract, dtypes)
        key = (*dtypes, _out_dtype(contract, dtypes))
        if key in entry.mixed:
            return True
        if entry.mixed and len(set(key)) > 1:
            return (f"{contract.op_kind} has Vulkan kernels for {', '.join(entry.dtypes)} and the keys "
                    f"{', '.join('[' + ', '.join(k) + ']' for k in entry.mixed)}, not [{', '.join(key)}]")
        float_inputs = [d for d in dtypes if d != "BOOL"][: 1 if entry.family == "move" else None]
        if len(set(float_inputs)) > 1:  # data movement: the data's dtype (indices, mask aside)
            return f"mixed input dtypes {dtypes} are not implemented"
        dtype = float_inputs[0] if float_inputs else ""
        if dtype not in entry.dtypes:
            return f"{contract.op_kind} has Vulkan kernels for {', '.join(entry.dtypes)}, not {dtype}"
        if entry.family == "unary" and dtype == "BF16":
            if any(spec.layout.accepts_any_awkward for spec in contract.inputs):
                return ("the BF16 unary kernel is the contiguous-only pair-thread kernel; this "
                        "contract accepts strided layouts")
        return True

    def run(self, contract, call: KernelCall) -> list[np.ndarray]:
        entry = OPS.get(contract.op_kind or "")
        if entry is None:
            raise ValueError(f"{contract.kernel}: no Vulkan kernel for op kind {contract.op_kind!r}")
        return LAUNCHERS[entry.family](entry, contract.kernel, call)

    def timed(self, contract, call: KernelCall):
        """The dispatch alone, fenced (``judge measure``; see backends.kompute.timing)."""
        from backends.kompute import timing

        entry = OPS.get(contract.op_kind or "")
        if entry is None:
            raise ValueError(f"{contract.kernel}: no Vulkan kernel for op kind {contract.op_kind!r}")
        return timing.timed(LAUNCHERS[entry.family], entry, contract.kernel, call)

    def timed_copy(self, nbytes: int):
        from backends.kompute import timing

        return timing.timed_copy(nbytes)
