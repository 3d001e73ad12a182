"""How reliably each deliberately broken backend is caught: the share of seeds whose search finds it.

Run: python benchmarks/catch_rate.py [--seeds N] [--profile ci]
The tests prove each broken backend is caught at the seed CI uses; this measures the search's
power over many seeds, so a generator change that makes some bug class rare shows as a number.
Prints one line per broken backend: caught/N, the seeds that missed, and checks that caught it.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# The deliberately broken backends of the kernel families beyond elementwise and reductions,
# one per bug class: (plugin file in tests/plugins, class, contract file, kernel, dtype[, edit]).
FAMILY_CASES = [
    ("broken_matmul.py", "HalfAccumulationMatmul", "matmul.fkc.md", "matmul_cpu", "BF16"),
    ("broken_matmul.py", "HalfAccumulationMatmul", "matmul.fkc.md", "matmul_cpu", "F16"),
    ("broken_matmul.py", "HalfAccumulationCumSum", "cumsum.fkc.md", "cumsum_cpu", "F16"),
    ("broken_matmul.py", "HalfAccumulationCumSum", "cumsum.fkc.md", "cumsum_cpu", "BF16"),
    ("broken_matmul.py", "TiledGqa", "matmul.fkc.md", "matmul_cpu", "F32"),
    ("broken_matmul.py", "NarrowInt8Matmul", "matmul.fkc.md", "matmul_int_cpu", "I8"),
    ("broken_matmul.py", "Int16AccumulationMatmul", "matmul.fkc.md", "matmul_int_cpu", "I8"),
    ("broken_matmul.py", "SignedSaturationMatmul", "matmul.fkc.md", "matmul_int_cpu", "U8"),
    ("broken_mixed_matmul.py", "OutputTypeAccumulationMatmul", "matmul-mixed-vulkan.fkc.md",
     "matmul_bf16_bf16_bf16", "BF16"),
    ("broken_mixed_matmul.py", "OutputTypeAccumulationMatmul", "matmul-mixed-vulkan.fkc.md",
     "matmul_f16_f16_f16", "F16"),
    ("broken_affine.py", "Float32Affine", "affine-int.fkc.md", "affine_int_cuda", "I32"),
    ("broken_affine.py", "TruncatingAffine", "affine-int.fkc.md", "affine_int_cuda", "I32"),
    ("broken_affine.py", "WrappingAffine", "affine-int.fkc.md", "affine_int_cuda", "U8"),
    ("broken_cast.py", "TruncatingBf16", "cast.fkc.md", "cast_to_bf16_cpu", "F32"),
    ("broken_cast.py", "SaturatingF8", "cast.fkc.md", "cast_to_f8e4m3_cpu", "F32"),
    ("broken_move.py", "FlipThroughFloat64", "data-movement.fkc.md", "flip_cpu", "F32"),
    ("broken_move.py", "IndexSelectCanonicalZeros", "data-movement.fkc.md", "index_select_cpu", "F32"),
    ("broken_move.py", "RollWrongSign", "data-movement.fkc.md", "roll_cpu", "F32"),
    ("broken_move.py", "TriuOffByOne", "data-movement.fkc.md", "triu_cpu", "F16"),
    ("broken_move.py", "MaskedFillThroughFloat", "data-movement.fkc.md", "masked_fill_cpu", "F32"),
    ("broken_norm.py", "NoMaxShift", "softmax-norm.fkc.md", "softmax_last_dim_cpu", "F32"),
    ("broken_norm.py", "NoMaxShift", "softmax-norm.fkc.md", "log_softmax_last_dim_cpu", "F32"),
    ("broken_norm.py", "OnePassVariance", "softmax-norm.fkc.md", "layer_norm_last_dim_cpu", "F32"),
    ("broken_norm.py", "StorageAccumulation", "softmax-norm.fkc.md", "rms_norm_last_dim_cpu", "F16"),
    ("broken_backward.py", "SoftmaxSignError", "backward.fkc.md", "softmax_last_dim_backward_cpu", "F32"),
    ("broken_backward.py", "LayerNormSignError", "backward.fkc.md", "layer_norm_last_dim_backward_cpu", "F32"),
    ("broken_backward.py", "LayerNormDroppedMean", "backward.fkc.md", "layer_norm_last_dim_backward_cpu", "F32"),
    ("broken_backward.py", "PowIDividesByX", "backward.fkc.md", "powi_backward_cpu", "F32"),
    ("broken_backward.py", "HalfRowSums", "backward.fkc.md", "rms_norm_last_dim_backward_cpu", "F16"),
    ("broken_quant.py", "ScaleReadAsF32", "quant-matmul.fkc.md", "qmatmul_cpu", "F32"),
    ("broken_quant.py", "Nf4NibblesSwapped", "quant-matmul.fkc.md", "nf4_matmul_cpu", "F32"),
    ("broken_conv.py", "RopeInterleavedPairs", "rope.fkc.md", "rope_cpu", "F32"),
    ("broken_conv.py", "RopeSinOnTheWrongHalf", "rope.fkc.md", "rope_cpu", "F16"),
    ("broken_conv.py", "CausalConvPadsRight", "conv.fkc.md", "causal_conv1d_cpu", "F32"),
    ("broken_conv.py", "Conv2dPaddingSidesSwapped", "conv.fkc.md", "conv2d_cpu", "F32"),
    ("broken_conv.py", "ConvTransposeUnflipped", "conv.fkc.md", "conv_transpose2d_cpu", "F32"),
    ("broken_conv.py", "ConvTransposeOutputPaddingTop", "conv.fkc.md", "conv_transpose2d_bias_cpu", "F32"),
    ("broken_conv.py", "PadReflectRepeatsEdge", "pad.fkc.md", "pad_cuda", "F32"),
    ("broken_conv.py", "PadZeroFillFastPath", "pad.fkc.md", "pad_cpu", "F32"),
    ("broken_conv.py", "PadZeroFillFastPath", "pad.fkc.md", "pad_cpu", "BF16"),
    # the four bug classes of issue 25, on every item where the bug is live
    *[("broken_move.py", "RollShiftI32", "data-movement.fkc.md", "roll_cpu", d)
      for d in ("F32", "F64", "BF16", "F16", "U32", "U8")],
    ("broken_cast.py", "TiesAwayBf16", "cast.fkc.md", "cast_to_bf16_cpu", "F32"),
    ("broken_matmul.py", "SplitKBf16Partials", "matmul.fkc.md", "matmul_cpu", "BF16"),
    *[("broken_move.py", "MaskedFillPositiveZero", "data-movement.fkc.md", "masked_fill_cpu", d)
      for d in ("F32", "F64", "BF16", "F16")],
    # special-value bugs the grid catches (seed-independent: one deterministic case per item)
    ("broken_special.py", "ExpLogPow", "elementwise-binary.fkc.md", "pow_elementwise_cpu", "F32"),
    ("broken_special.py", "SkipZerosMul", "elementwise-binary.fkc.md", "mul_elementwise_cpu", "F16"),
    ("broken_attn.py", "CausalOffsetFromSk", "attention.fkc.md", "flash_attn_cpu", "F32"),
    ("broken_attn.py", "CausalOffsetFromSk", "attention.fkc.md", "flash_attn_backward_q_cpu", "BF16"),
    ("broken_attn.py", "GqaModulo", "attention.fkc.md", "flash_attn_cpu", "F16"),
    ("broken_attn.py", "GqaModulo", "attention.fkc.md", "paged_attn_cpu", "F32"),
    ("broken_attn.py", "GqaModulo", "attention.fkc.md", "flash_attn_backward_k_cpu", "F64"),
    ("broken_attn.py", "NoMaxShift", "attention.fkc.md", "flash_attn_cpu", "F32"),
    ("broken_attn.py", "NoMaxShift", "attention.fkc.md", "flash_attn_alibi_cpu", "F64"),
    ("broken_attn.py", "NoMaxShift", "attention.fkc.md", "paged_attn_cpu", "BF16"),
    ("broken_attn.py", "BackwardSignError", "attention.fkc.md", "flash_attn_backward_q_cpu", "F32"),
    ("broken_attn.py", "BackwardSignError", "attention.fkc.md", "flash_attn_backward_k_alibi_cpu", "F16"),
    ("broken_attn.py", "PagedContextOffByOne", "attention.fkc.md", "paged_attn_cpu", "F32"),
    ("broken_attn.py", "PagedContextOffByOne", "attention.fkc.md", "paged_attn_alibi_cpu", "F64"),
    ("broken_scan.py", "Bf16State", "scans.fkc.md", "selective_scan_cpu", "F32"),
    ("broken_scan.py", "Bf16State", "scans.fkc.md", "selective_scan_cpu", "F16"),
    ("broken_scan.py", "Bf16State", "scans.fkc.md", "ssd_chunk_scan_cpu", "F32"),
    ("broken_scan.py", "Bf16State", "scans.fkc.md", "ssd_chunk_scan_cpu", "BF16"),
    ("broken_fused.py", "RoundedProductLinear", "fused.fkc.md", "fused_linear_cpu", "BF16"),
    ("broken_fused.py", "RoundedProductLinear", "fused.fkc.md", "fused_linear_cpu", "F16"),
    ("broken_fused.py", "MeanOverAllRows", "fused.fkc.md", "fused_softmax_cross_entropy_cpu", "F32"),
    ("broken_fused.py", "MeanOverAllRows", "fused.fkc.md", "fused_softmax_cross_entropy_cpu", "BF16"),
    ("broken_scatter.py", "ScatterDropsDuplicates", "scatter.fkc.md", "scatter_add_cpu", "F32"),
    ("broken_scatter.py", "ScatterDropsDuplicates", "scatter.fkc.md", "scatter_add_cpu", "BF16"),
    # in-place kernels: a second pass that rereads its overwritten operand, a result returned
    # instead of written, a store past the target's end
    ("broken_inplace.py", "TwoPassSilu", "inplace.fkc.md", "silu_inplace", "F32"),
    ("broken_inplace.py", "TwoPassSilu", "inplace.fkc.md", "silu_inplace", "BF16"),
    ("broken_inplace.py", "ReturnsFresh", "inplace.fkc.md", "silu_inplace", "F32"),
    ("broken_inplace.py", "ClobbersPastEnd", "inplace.fkc.md", "silu_inplace", "F16"),
    # slab writes and copies: a ring that never wraps, a ring read from the range start, a row
    # stored one element past its end, a copy by pairs that drops an odd tail
    ("broken_slices.py", "RingForgetsModulus", "slices.fkc.md", "write_slice_rotating_cpu", "F32"),
    ("broken_slices.py", "RingForgetsModulus", "slices.fkc.md", "write_slice_rotating_cpu", "U8"),
    ("broken_slices.py", "RingReadsRangeStart", "slices.fkc.md", "write_slice_rotating_cpu", "F32"),
    ("broken_slices.py", "WriteSliceInclusiveEnd", "slices.fkc.md", "write_slice_cpu", "F32"),
    ("broken_slices.py", "WriteSliceInclusiveEnd", "slices.fkc.md", "write_slice_cpu", "BF16"),
    ("broken_slices.py", "CopyDropsOddTail", "slices.fkc.md", "copy_cpu", "F32"),
    ("broken_slices.py", "CopyDropsOddTail", "slices.fkc.md", "copy_cpu", "I64"),
    # stores past a buffer's end, loads before a misaligned base (a trailing line edit: the
    # contract is the block with that edit, made by tests/harness/contract_variants.py)
    ("broken_guards.py", "PairWriter", "reference-elementwise.fkc.md", "neg", "BF16"),
    ("broken_guards.py", "PairWriter", "reference-elementwise.fkc.md", "neg", "F16"),
    ("broken_guards.py", "WordStoreF16", "reference-elementwise.fkc.md", "neg", "F16"),
    *[("broken_guards.py", "AlignedLoads", "reference-elementwise.fkc.md", "neg", d,
       ("start_offset: rejected", "start_offset: accepted")) for d in ("F16", "BF16")],
    # error inputs a kernel must refuse: an index past its axis clamped, a short operand list
    # read through a null pointer (a segfault, in a worker), a k off the NF4 block multiple
    ("broken_invalid.py", "ClampedIndices", "data-movement.fkc.md", "index_select_cpu", "F32"),
    ("broken_invalid.py", "ClampedIndices", "data-movement.fkc.md", "gather_cpu", "F32"),
    ("broken_invalid.py", "RawOperandTable", "data-movement.fkc.md", "index_select_cpu", "F32"),
    ("broken_invalid.py", "FlooredBlocks", "quant-matmul.fkc.md", "nf4_matmul_cpu", "F32"),
]


def _plugin(name: str):
    """A module of tests/plugins, loaded from its file (once)."""
    if name not in _PLUGINS:
        spec = importlib.util.spec_from_file_location(f"judge_{name[:-3]}", ROOT / "tests" / "plugins" / name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _PLUGINS[name] = module
    return _PLUGINS[name]


_PLUGINS: dict = {}
# Broken backends that take their process down: their calls run in a worker process.
IN_A_WORKER = {"RawOperandTable"}


def _in_a_worker(plugin: str, cls: str):
    """The plugin's backend ``cls`` behind a sandbox (the worker loads the plugin file under the
    module name this process gives it, and unpickles the backend)."""
    from judge.registry import load_plugin
    from judge.sandbox import IsolatedBackend, spec_of

    path = str(ROOT / "tests" / "plugins" / plugin)
    load_plugin(path)
    module = next(m for m in list(sys.modules.values())
                  if getattr(m, "__file__", None) == path and m.__name__.startswith("judge_plugin_"))
    backend = getattr(module, cls)()
    return IsolatedBackend(backend, spec_of(backend, (path,)), backend.name, timeout=60)


def main(argv: list[str] | None = None) -> int:
    if str(ROOT) not in sys.path:  # this checkout's Judge, whichever one is installed
        sys.path.insert(0, str(ROOT))
    from judge.profiles import get_profile
    from judge.runner import Item, run_item
    from judge.suite import load_paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--only", default="", help="comma-separated broken backend class names")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")

    sys.path.insert(0, str(ROOT / "tests" / "harness"))
    from test_broken_backends import CASES

    loaded = load_paths([ROOT / "suites" / "fuel"])
    contracts = {(Path(c.file).name, c.kernel): c for c in loaded.contracts}
    wanted = {n for n in args.only.split(",") if n}
    profile = get_profile(args.profile)
    total_missed = 0
    cases = [("broken.py", cls, file, kernel, dtype) for cls, file, kernel, dtype, _ in CASES]
    from contract_variants import variant

    for cls_plugin, cls, file, kernel, dtype, *edits in cases + FAMILY_CASES:
        if wanted and cls not in wanted:
            continue
        contract = variant(file, kernel, *edits) if edits else contracts[(file, kernel)]
        start = time.perf_counter()
        missed, checks = [], collections.Counter()
        backend_class = getattr(_plugin(cls_plugin), cls)
        # A computing bug is caught by what the kernel computes: its mini backend checks no
        # operands, so error inputs (which it would fail) judge only the error-input bugs.
        judged = profile if cls_plugin == "broken_invalid.py" else replace(profile, error_inputs=0)
        for seed in range(args.seeds):
            backend = _in_a_worker(cls_plugin, cls) if cls in IN_A_WORKER else backend_class()
            row = run_item(Item(contract, backend, dtype), judged, seed=seed).row
            getattr(backend, "close", lambda: None)()
            if row.verdict == "fail":
                checks[row.reason.split(":", 1)[0]] += 1
            else:
                missed.append(seed)
        total_missed += len(missed)
        print(f"{cls + ' ' + kernel + ' ' + dtype:48s} caught {args.seeds - len(missed):3d}/{args.seeds}  missed seeds {missed}  "
              f"by {dict(checks)}  ({time.perf_counter() - start:.1f} s)", flush=True)
    return 1 if total_missed else 0


if __name__ == "__main__":
    sys.exit(main())
