"""The ``torch-cpu`` and ``torch-cuda`` backends: torch's own kernels on each device.

Inputs cross as exact bits: each base buffer becomes a tensor (BF16 through an int16 view),
moves to the device, and is viewed with ``torch.as_strided`` using the executor's shape,
element strides and offset, so accepted strided and stride-0 layouts reach torch as views.
Results come back to the host bit for bit and are copied into the pre-allocated outputs.
"""

from __future__ import annotations

import warnings

from backends._common import (
    check_dtypes,
    in_place,
    make_op_call,
    other_inputs,
    store_outputs,
    writable_view,
)
from judge.api import Backend, allocation_window, is_resident

_TORCH_DTYPES = {"F32": "float32", "F64": "float64", "F16": "float16", "BF16": "bfloat16", "BOOL": "bool"}
# Formats numpy holds through ml_dtypes: they cross to torch as bits, (numpy view, torch dtype).
_BIT_VIEWS = {"BF16": ("int16", "bfloat16"), "F8E4M3": ("uint8", "float8_e4m3fn")}


def to_device(torch, arg, device: str):
    """A torch view of ``arg`` on ``device`` (its base uploaded whole, never compacted)."""
    return upload(torch, arg, device)[0]


def upload(torch, arg, device: str, window: bool | None = None):
    """(A torch view of ``arg`` on ``device``, the uploaded window, the host bytes it came from).

    On the CPU the tensor shares the host buffer. On another device the base goes up with the
    bytes around it (``judge.api.allocation_window``: the executor's guards), so a kernel reading
    past either end reads the poison, and ``download_window`` brings an in-place kernel's writes,
    stray ones included, back to the host allocation (``window`` forces either way; tests use it
    on the CPU). Resident arguments are shared, not copied."""
    if is_resident(arg):  # already on the device: shared, not copied
        return torch.as_strided(torch.from_dlpack(arg.base), arg.shape, arg.strides, arg.offset), None, None
    host = arg.base.view(_BIT_VIEWS[arg.dtype][0]) if arg.dtype in _BIT_VIEWS else arg.base
    with warnings.catch_warnings():
        # A read-only base is only ever read; torch warns about writability regardless.
        warnings.simplefilter("ignore", UserWarning)
        tensor = torch.from_numpy(host)
        host_window = up = None
        if (device != "cpu" if window is None else window) and host.size:
            host_window, start = allocation_window(host)
            up = torch.from_numpy(host_window).to(device)
            tensor = up[start:start + host.nbytes].view(tensor.dtype)
    if arg.dtype in _BIT_VIEWS:
        tensor = tensor.view(getattr(torch, _BIT_VIEWS[arg.dtype][1]))
    tensor = tensor.to(device)
    if arg.size == 0:
        return torch.empty(arg.shape, dtype=tensor.dtype, device=device), None, None
    # as_strided's offset counts from the storage's start, where the window holds guards first
    view = torch.as_strided(tensor, arg.shape, arg.strides, tensor.storage_offset() + arg.offset)
    return view, up, host_window


def download_window(device_window, host_window) -> None:
    """Copy an uploaded window back over the host bytes it came from (after an in-place call)."""
    if device_window is not None:
        host_window[...] = device_window.to("cpu").numpy()


def to_host(torch, tensor, dtype: str):
    """``tensor`` as a host numpy array for an output of FKC dtype ``dtype``, bits unchanged.

    A float result of another float dtype is converted first, as ``out.copy_(result)`` into
    the pre-allocated output would; integer indices become the U32 the contract stores. Any
    other mismatch comes back as torch gave it, for the Judge's dtype check to report.
    """
    import numpy as np

    from numerics.formats import get_format

    tensor = tensor.detach()
    if dtype == "U32" and not (tensor.dtype.is_floating_point or tensor.dtype == torch.bool):
        return tensor.to("cpu").numpy().astype(np.uint32)
    expected = getattr(torch, _TORCH_DTYPES.get(dtype, ""), None)
    if expected is not None and tensor.dtype.is_floating_point and expected.is_floating_point:
        tensor = tensor.to(expected)
    tensor = tensor.contiguous().to("cpu")
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(get_format("BF16").numpy_dtype)
    if tensor.dtype == torch.float8_e4m3fn:
        return tensor.view(torch.uint8).numpy().view(get_format("F8E4M3").numpy_dtype)
    return tensor.numpy()


def resident(torch, arg, device: str):
    """``arg`` on the device; a plain tensor when it is contiguous from the start of its buffer
    (what a dispatcher hands a kernel), else the adapter's strided view."""
    tensor = to_device(torch, arg, device)
    if arg.is_contiguous() and arg.base.size == arg.size and arg.size:
        return tensor.contiguous().view(arg.shape)
    return tensor


class TorchBackend(Backend):
    """torch on one device (``cpu`` or ``cuda``)."""

    def __init__(self, name: str, device: str) -> None:
        self.name = name
        self.device = device
        self.device_arrays = "dlpack" if device == "cuda" else None

    def available(self) -> bool | str:
        try:
            import torch
        except ImportError:
            return "torch is not installed"
        if self.device == "cuda" and not torch.cuda.is_available():
            return (
                f"no CUDA device: torch {torch.__version__} (built with CUDA "
                f"{torch.version.cuda or 'none'}) reports torch.cuda.is_available() == False"
            )
        return True

    def context_lost(self) -> bool:
        if self.device != "cuda":
            return False
        import torch

        try:
            torch.cuda.synchronize()  # a sticky error is raised again by every later call
        except Exception:  # noqa: BLE001 - any error here means the context cannot be used
            return True
        return False

    def supports(self, contract, dtypes) -> bool | str:
        from backends._torch_move import unsupported
        from backends._torch_ops import TORCH_TABLE

        ok = check_dtypes(contract.op_kind, dtypes, library="torch", wired=TORCH_TABLE)
        if ok is not True:
            return ok
        if (why := unsupported(contract.op_kind, dtypes)) is not None:
            return why
        if contract.handles_strided and any(i.layout.reverse_strides for i in contract.inputs):
            return "torch tensors cannot have negative strides, which this contract accepts"
        return True

    def run(self, contract, call):
        import torch

        from backends._torch_ops import TORCH_TABLE, TorchEnv
        from numerics.formats import get_format

        op = make_op_call(contract, call)
        env = TorchEnv(torch=torch, op=op, t_numpy=get_format(op.dtype).numpy_dtype)
        if in_place(contract):
            return self._run_in_place(torch, env, contract, call)
        args = [to_device(torch, arg, self._torch_device()) for arg in call.inputs]
        with torch.no_grad():
            result = TORCH_TABLE[op.op_kind](env, args)
        if call.inputs and is_resident(call.inputs[0]):
            return [result.contiguous()]  # stays on the device
        return store_outputs(call, [to_host(torch, result, op.out_dtypes[0])])

    def _run_in_place(self, torch, env, contract, call):
        """torch's in-place kernel on a tensor over the target, ``outputs[0]`` (the other
        inputs follow it): on the CPU that tensor shares the operand's buffer
        (``torch.from_numpy``); on another device the result is copied back into the target."""
        from backends._torch_ops import TORCH_TABLE

        out = call.outputs[0]
        device = self._torch_device()
        target, device_window, host_window = upload(torch, out, device)
        rest = [to_device(torch, arg, device) for arg in other_inputs(contract, call)]
        with torch.no_grad():
            TORCH_TABLE[env.op.op_kind](env, [target, *rest])
        if self.device != "cpu":
            if device_window is not None:  # the target's window: its writes, and any past its ends
                download_window(device_window, host_window)
            else:
                writable_view(out)[...] = to_host(torch, target, out.dtype)
        return None

    def _torch_device(self) -> str:
        return "cuda" if self.device == "cuda" else "cpu"

    def describe(self) -> str:
        import torch

        if self.device == "cuda":
            return (
                f"torch {torch.__version__} (CUDA {torch.version.cuda}) on "
                f"{torch.cuda.get_device_name(0)}"
            )
        return f"torch {torch.__version__} on cpu ({torch.get_num_threads()} threads)"

    def fingerprint(self) -> dict[str, str]:
        from backends._fingerprint import torch_cpu_facts, torch_cuda_facts

        return torch_cuda_facts() if self.device == "cuda" else torch_cpu_facts()

    def timed(self, contract, call):
        """The torch call on tensors already on the device (``judge measure``)."""
        import torch

        from backends._torch_ops import TORCH_TABLE, TorchEnv
        from backends._torch_timing import TorchCall
        from numerics.formats import get_format

        op = make_op_call(contract, call)
        env = TorchEnv(torch=torch, op=op, t_numpy=get_format(op.dtype).numpy_dtype)
        args = [resident(torch, arg, self._torch_device()) for arg in call.inputs]
        entry = TORCH_TABLE[op.op_kind]
        bound = getattr(entry, "bound", None)  # the bare library call where the entry has one
        return TorchCall(torch, bound(env, args) if bound else lambda: entry(env, args), self.device)

    def timed_copy(self, nbytes: int):
        import torch

        from backends._torch_timing import copy_call

        return copy_call(torch, nbytes, self._torch_device())


def backends() -> list[Backend]:
    return [TorchBackend("torch-cpu", "cpu"), TorchBackend("torch-cuda", "cuda")]
