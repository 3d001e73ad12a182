"""Stand-in backends for the quantized matmuls: the format owners' own dequantizers, judged
against the exact reference like any kernel. Loaded as a plugin module:

    pytest suites/fuel/quant-matmul.fkc.md --plugin backends.standins --backend gguf --backend bitsandbytes

- ``gguf`` (QMatMul): ``gguf.quants.dequantize`` of the weight's block bytes (the ``gguf``
  package's numpy port of ggml's dequantizers), then ``numpy.matmul`` in f32. The package has
  no Q8_1 dequantizer; a Q8_1 block is a Q8_0 block with one more binary16 (``s``, unused by
  dequantization) after ``d``, so the adapter drops ``s`` and hands the package Q8_0 blocks.
- ``bitsandbytes`` (Nf4Matmul): ``bitsandbytes.functional.dequantize_4bit`` with a NF4
  ``QuantState`` (the packed bytes, the absmax per block, ``blocksize``), dequantized to f32,
  then ``torch.matmul`` in f32, rounded to T once.
"""

from __future__ import annotations

from judge.api import Backend

GGUF_NAMES = {"Q2K": "Q2_K", "Q3K": "Q3_K", "Q4_K_M": "Q4_K", "Q5K": "Q5_K", "Q6K": "Q6_K"}


def _dims(p) -> tuple[int, int, int, int]:
    batch = p["batch_count"] if "batch_count" in p else p["batch"]
    return int(batch), int(p["m"]), int(p["n"]), int(p["k"])


class GgufBackend(Backend):
    name = "gguf"
    device = "cpu"

    def available(self) -> bool | str:
        try:
            import gguf  # noqa: F401
        except ImportError as exc:
            return f"the gguf package is not installed: {exc}"
        return True

    def supports(self, contract, dtypes) -> bool | str:
        return True if contract.op_kind == "QMatMul" else f"gguf has no kernel for {contract.op_kind}"

    def run(self, contract, call):
        import numpy as np
        from gguf import GGMLQuantizationType, quants

        from backends._common import store_outputs

        _, _, n, k = _dims(call.params)
        kind = str(call.params["quant_type"])
        a = call.inputs[0].view()
        raw = np.ascontiguousarray(call.inputs[1].view()).astype("<u4").view(np.uint8)
        if kind == "Q8_1":  # d, s, 32 quants -> d, 32 quants (a Q8_0 block)
            blocks = raw[: n * k // 32 * 36].reshape(-1, 36)
            raw, kind = np.concatenate([blocks[:, :2], blocks[:, 4:]], axis=1).reshape(-1), "Q8_0"
        qtype = getattr(GGMLQuantizationType, GGUF_NAMES.get(kind, kind))
        size = quants.GGML_QUANT_SIZES[qtype][1] * (n * k // quants.GGML_QUANT_SIZES[qtype][0])
        with np.errstate(all="ignore"):
            w = quants.dequantize(raw[:size], qtype).astype(np.float32).reshape(n, k)
            out = np.matmul(a.astype(np.float32), w.T)
        return store_outputs(call, [out])

    def describe(self) -> str:
        from importlib.metadata import version

        return f"gguf {version('gguf')} (numpy dequantizers) on cpu"


class BitsandbytesBackend(Backend):
    name = "bitsandbytes"
    device = "cpu"

    def available(self) -> bool | str:
        try:
            import bitsandbytes  # noqa: F401
            import torch  # noqa: F401
        except ImportError as exc:
            return f"bitsandbytes (with torch) is not installed: {exc}"
        return True

    def supports(self, contract, dtypes) -> bool | str:
        ok = contract.op_kind == "Nf4Matmul"
        return True if ok else f"bitsandbytes has no kernel for {contract.op_kind}"

    def run(self, contract, call):
        import torch
        from bitsandbytes import functional as F

        from backends._common import store_outputs
        from backends.torch_backend import to_device, to_host

        batch, m, n, k = _dims(call.params)
        a, packed, absmax = (to_device(torch, arg, "cpu") for arg in call.inputs)
        if n and batch * m:
            state = F.QuantState(absmax=absmax.reshape(-1).float(), shape=torch.Size([n, k]),
                                 code=F.get_4bit_type("nf4", device="cpu"),
                                 blocksize=int(call.params["block_size"]), quant_type="nf4",
                                 dtype=torch.float32)
            w = F.dequantize_4bit(packed.reshape(-1, 1).contiguous(), state)
            out = torch.matmul(a.float(), w.T)
        else:  # nothing to dequantize or no row to multiply: an empty or all-zero product
            out = torch.zeros((batch, m, n))
        return store_outputs(call, [to_host(torch, out.to(a.dtype), call.outputs[0].dtype)])

    def describe(self) -> str:
        import bitsandbytes

        return f"bitsandbytes {bitsandbytes.__version__} on cpu"


def backends() -> list[Backend]:
    return [GgufBackend(), BitsandbytesBackend()]


def _register() -> None:
    import judge

    for backend in backends():
        judge.register_backend(backend)


_register()  # a plugin module registers its backends when imported (--plugin backends.standins)
