"""The kompute (Vulkan) adapter, driven directly with hand-built calls.

Every registrable Vulkan contract of the embedded suite runs for every dtype it lists, in every
layout it accepts, against a float64 expectation on benign values; then the kernel mechanics
that the Judge cannot see from outside get their own tests: per-operand broadcasting (stride 0
and size 1), rank > 4 views, odd BF16 element counts, the round-to-nearest-even BF16 store,
multi-axis reductions larger than a workgroup, lowest-index ties, untouched poison detection,
refusal of offsets, and that the shipped SPIR-V is what the sources compile to.

Where kp or a Vulkan device is missing these tests skip with the reason, except under CI=true,
where the Vulkan backend must run and a missing one fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache

import numpy as np
import pytest
import sample_calls

from backends.kompute.adapter import KomputeBackend
from backends.kompute.ops import OPS
from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.executor import poison_output
from numerics.formats import get_format
from numerics.values import POISON_BITS

EXPECT = {
    "NegElementwise": lambda x, p: -x,
    "SqrElementwise": lambda x, p: x * x,
    "SqrtElementwise": lambda x, p: np.sqrt(x),
    "ExpElementwise": lambda x, p: np.exp(x),
    "LogElementwise": lambda x, p: np.log(x),
    "SinElementwise": lambda x, p: np.sin(x),
    "CosElementwise": lambda x, p: np.cos(x),
    "TanhElementwise": lambda x, p: np.tanh(x),
    "SigmoidElementwise": lambda x, p: 1.0 / (1.0 + np.exp(-x)),
    "SiluElementwise": lambda x, p: x / (1.0 + np.exp(-x)),
    "GeluElementwise": lambda x, p: 0.5 * x * (
        1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3))),
    "ReluElementwise": lambda x, p: np.maximum(x, 0.0),
    "StepElementwise": lambda x, p: (x > 0).astype(np.float64),
    "AbsElementwise": lambda x, p: np.abs(x),
    "SignElementwise": lambda x, p: np.sign(x),
    "RecipElementwise": lambda x, p: 1.0 / x,
    "Affine": lambda x, p: x * p["mul"] + p["add"],
    "ClampElementwise": lambda x, p: np.clip(x, p.get("lo", p.get("min")), p.get("hi", p.get("max"))),
    "PowIElementwise": lambda x, p: x ** p["exp"],
    "AddElementwise": lambda a, b, p: a + b,
    "SubElementwise": lambda a, b, p: a - b,
    "MulElementwise": lambda a, b, p: a * b,
    "DivElementwise": lambda a, b, p: a / b,
    "MaximumElementwise": lambda a, b, p: np.maximum(a, b),
    "MinimumElementwise": lambda a, b, p: np.minimum(a, b),
    "SumReduce": lambda x, p: x.sum(axis=tuple(p["dims"])),
    "MeanReduce": lambda x, p: x.mean(axis=tuple(p["dims"])),
    "MaxReduce": lambda x, p: x.max(axis=tuple(p["dims"])),
    "MinReduce": lambda x, p: x.min(axis=tuple(p["dims"])),
    "ArgMaxDim": lambda x, p: x.argmax(axis=p["dims"][0]),
    "ArgMinDim": lambda x, p: x.argmin(axis=p["dims"][0]),
    "CumSum": lambda x, p: np.cumsum(x, axis=p["axis"]),
    "Cast": lambda x, p: x,
}
# F64 transcendentals run in f32 (GLSL has no double exp/log/...), so F64 gets f32's tolerance.
TOLERANCE = {"F64": 1e-6, "F32": 1e-5, "F16": 4e-3, "BF16": 3e-2}


# Vulkan contracts whose OpKind has no kompute shader yet: the adapter refuses them with a reason
# (``unsupported`` in the coverage matrix), and a test below holds it to that.
NO_SHADER_YET: set[str] = set()


@cache
def vulkan_suite():
    from judge.suite import load_paths

    loaded = load_paths(None)
    assert not loaded.errors, loaded.errors
    return tuple(c for c in loaded.registrable if c.device == "vulkan" and c.op_kind not in NO_SHADER_YET)


def test_vulkan_contracts_without_a_shader_are_refused_with_a_reason():
    from judge.suite import load_paths

    pending = [c for c in load_paths(None).registrable if c.device == "vulkan" and c.op_kind in NO_SHADER_YET]
    assert {c.op_kind for c in pending} == NO_SHADER_YET
    for c in pending:
        why = KomputeBackend().supports(c, (c.dtype_fan[0],))
        assert isinstance(why, str) and c.op_kind in why, (c.kernel, why)


def _cases():
    for c in filter(sample_calls.hand_built, vulkan_suite()):
        layouts = sample_calls.LAYOUTS if c.handles_strided else ("contiguous",)
        for dtype in c.dtype_fan:
            for layout in layouts:
                yield pytest.param(c, dtype, layout,
                                   id=f"{c.file.rsplit('/', 1)[-1]}::{c.kernel}-{dtype}-{layout}")


def _check_call(backend, contract, call, dtype: str) -> np.ndarray:
    before = [t.base.copy() for t in call.inputs]
    (out,) = backend.run(contract, call)
    spec = call.outputs[0]
    fmt = get_format(spec.dtype)
    assert out.shape == spec.shape, f"{contract.kernel}: shape {out.shape}, expected {spec.shape}"
    assert out.dtype == fmt.numpy_dtype, f"{contract.kernel}: dtype {out.dtype}, expected {fmt.name}"
    assert not (out.view(fmt.bits_dtype) == POISON_BITS[spec.dtype]).any(), (
        f"{contract.kernel} {dtype}: output left unwritten")
    for b, t in zip(before, call.inputs, strict=True):
        assert b.tobytes() == t.base.tobytes(), f"{contract.kernel}: an input was modified"
    args = [t.to_array().astype(np.float64) for t in call.inputs]
    with np.errstate(all="ignore"):
        want = np.asarray(EXPECT[contract.op_kind](*args, call.params))
    if spec.dtype == "U32":
        np.testing.assert_array_equal(out, want.astype(np.uint32), err_msg=contract.kernel)
    else:
        tol = TOLERANCE[spec.dtype]
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=tol, atol=tol,
                                   equal_nan=True, err_msg=f"{contract.kernel} {dtype}")
    return out


def test_the_suite_has_vulkan_contracts_for_every_op_in_the_table():
    kinds = {c.op_kind for c in vulkan_suite()}
    assert kinds == set(OPS), f"table-only: {set(OPS) - kinds}, suite-only: {kinds - set(OPS)}"


def test_every_vulkan_contract_is_supported_for_every_dtype():
    backend = KomputeBackend()
    refused = [(c.kernel, d, why) for c in vulkan_suite() for d in c.dtype_fan
               if (why := backend.supports(c, (d,) * len(c.inputs))) is not True]
    assert refused == []


@pytest.mark.parametrize(("contract_", "dtype", "layout"), list(_cases()))
def test_contract_sample_matches_float64(kompute, contract_, dtype, layout):
    call = sample_calls.sample_call(contract_, dtype, layout)
    _check_call(kompute, contract_, call, dtype)


def contract_for(op_kind: str, dtype: str = "F32"):
    for c in vulkan_suite():
        if c.op_kind == op_kind and dtype in c.dtype_fan:
            return c
    raise LookupError(f"no Vulkan contract for {op_kind} {dtype}")


DTYPES = ("F32", "F16", "F64", "BF16")


def arg(values, dtype: str, strides=None, base=None) -> TensorArg:
    a = np.asarray(values, dtype=np.float64).astype(get_format(dtype).numpy_dtype)
    if base is not None:
        return TensorArg(base, a.shape, tuple(strides), 0, dtype)
    return TensorArg(a.reshape(-1).copy(), a.shape, contiguous_strides(a.shape), 0, dtype)


def call_of(inputs, shape, dtype, params=None) -> KernelCall:
    out = poison_output(tuple(shape), dtype)
    return KernelCall(list(inputs), dict(params or {}), [out], [dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_operands_broadcast_by_size1_and_by_stride0(kompute, dtype):
    rng = np.random.default_rng(1)
    a = rng.uniform(-4, 4, size=(3, 1, 5))  # size-1 axis broadcasts
    row = rng.uniform(-4, 4, size=5)
    np_dtype = get_format(dtype).numpy_dtype
    base = row.astype(np_dtype)
    b = TensorArg(base, (4, 5), (0, 1), 0, dtype)  # stride-0 axis broadcasts
    c = contract_for("SubElementwise", dtype)
    out = _check_call(kompute, c, call_of([arg(a, dtype), b], (3, 4, 5), dtype), dtype)
    a_exact = a.astype(np_dtype).astype(np.float64)
    want = np.broadcast_to(a_exact - base.astype(np.float64), (3, 4, 5)).astype(np_dtype)
    np.testing.assert_array_equal(out, want)  # one rounding of an exact difference: bitwise


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_rank6_permuted_views(kompute, dtype):
    rng = np.random.default_rng(2)
    full = rng.uniform(-2, 2, size=(2, 3, 2, 3, 2, 5)).astype(get_format(dtype).numpy_dtype)
    perm = (5, 0, 3, 1, 4, 2)
    view = full.transpose(perm)
    strides = tuple(s // full.itemsize for s in view.strides)
    lhs = TensorArg(full.reshape(-1), view.shape, strides, 0, dtype)
    rhs = arg(np.ones(view.shape), dtype)
    c = contract_for("MulElementwise", dtype)
    out = _check_call(kompute, c, call_of([lhs, rhs], view.shape, dtype), dtype)
    np.testing.assert_array_equal(out, view)


@pytest.mark.parametrize("n", [1, 7, 129])
def test_bf16_unary_handles_odd_counts_and_rounds_to_nearest_even(kompute, n):
    # x*x for x = 1 + k/128: the exact square needs 16 bits, so the store must round; RNE on
    # the f32 bits is what ml_dtypes' conversion from f32 does too.
    x = (1.0 + np.arange(n) % 128 / 128.0).astype(get_format("BF16").numpy_dtype)
    c = contract_for("SqrElementwise", "BF16")
    out = _check_call(kompute, c, call_of([arg(x, "BF16")], (n,), "BF16"), "BF16")
    want = (x.astype(np.float32) * x.astype(np.float32)).astype(get_format("BF16").numpy_dtype)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))


def test_strided_unary_reads_through_stride0_without_materialising(kompute):
    base = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = TensorArg(base, (4, 3), (0, 1), 0, "F32")
    c = contract_for("NegElementwise")
    out = _check_call(kompute, c, call_of([x], (4, 3), "F32"), "F32")
    np.testing.assert_array_equal(out, -np.broadcast_to(base, (4, 3)))


@pytest.mark.parametrize("op_kind", ["SumReduce", "MaxReduce", "MinReduce", "MeanReduce"])
@pytest.mark.parametrize("dims", [[0], [1, 3], [0, 1, 2, 3], [2]])
def test_reductions_over_axis_sets_larger_than_a_workgroup(kompute, op_kind, dims):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(3, 70, 2, 33)).astype(np.float32)
    shape = tuple(n for d, n in enumerate(x.shape) if d not in dims)
    c = contract_for(op_kind)
    _check_call(kompute, c, call_of([arg(x, "F32")], shape, "F32",
                                    {"dims": dims, "keepdim": False}), "F32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op_kind", ["ArgMaxDim", "ArgMinDim"])
def test_arg_reductions_pick_the_lowest_index_among_ties(kompute, op_kind, dtype):
    x = np.zeros((3, 200))
    x[0, [7, 150, 199]] = 5.0  # ties spread over different threads of the workgroup
    x[1, [130, 66]] = 5.0
    x[2, :] = 5.0
    if op_kind == "ArgMinDim":
        x = -x
    c = contract_for(op_kind, dtype)
    out = _check_call(kompute, c, call_of([arg(x, dtype)], (3,), "U32",
                                          {"dims": [1], "keepdim": False}), dtype)
    assert out.tolist() == [7, 66, 0]


def test_an_unwritten_output_comes_back_as_poison(kompute):
    # The element count in the metadata bounds the kernel's loop: with one element announced,
    # the rest of the device output keeps the caller's poison, which the Judge then detects.
    from backends.kompute import device
    from backends.kompute.launch import M_FLAGS, _meta

    poison = poison_output((4,), "F32")
    meta = _meta(1, 0)
    meta[M_FLAGS] = 1
    x = np.ones(4, dtype=np.float32).view(np.uint32)
    words = device.dispatch("unary_f32", [x], poison.base.view(np.uint32), meta, threads=4)
    assert words[0] == np.float32(-1.0).view(np.uint32)
    assert (words[1:] == POISON_BITS["F32"]).all()


def test_start_offsets_are_refused_not_silently_walked(kompute):
    base = np.arange(8, dtype=np.float32)
    x = TensorArg(base, (2, 3), (3, 1), 2, "F32")
    with pytest.raises(ValueError, match="start offset"):
        kompute.run(contract_for("NegElementwise"), call_of([x], (2, 3), "F32"))


def test_contiguous_only_kernels_refuse_strided_views(kompute):
    base = np.arange(6, dtype=np.float32)
    x = TensorArg(base, (2, 3), (1, 2), 0, "F32")
    with pytest.raises(ValueError, match="requires a contiguous input"):
        kompute.run(contract_for("SumReduce"), call_of([x], (2,), "F32", {"dims": [1]}))


def test_describe_names_the_device(kompute):
    from backends.kompute import device

    assert device.device_name() in kompute.describe()


def test_unavailable_says_why(monkeypatch):
    from backends.kompute import adapter, device

    def missing():
        raise ImportError("No module named 'kp'")

    adapter._availability.cache_clear()
    monkeypatch.setattr(device, "kp_module", missing)
    try:
        why = KomputeBackend().available()
    finally:
        adapter._availability.cache_clear()
    assert isinstance(why, str) and "install-vulkan.sh" in why


def test_importing_the_package_does_not_import_kp():
    code = "import sys, backends.kompute as k; k.backends(); print('kp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_shipped_spirv_matches_the_shader_sources(tmp_path):
    from backends.kompute.programs import PROGRAMS, SPV_DIR, compile_program

    if shutil.which("glslangValidator") is None:
        # CI (scripts/test.sh) installs glslang, so there its absence is an error. A GPU job
        # runs the shipped SPIR-V and has no shader compiler: it says so (JUDGE_GPU_JOB).
        if os.environ.get("CI") == "true" and not os.environ.get("JUDGE_GPU_JOB"):
            pytest.fail("CI=true but glslangValidator is missing (scripts/install-vulkan.sh)")
        pytest.skip("glslangValidator is not installed; cannot rebuild the SPIR-V to compare "
                    "(the shipped SPIR-V is what runs)")
    stale = []
    for program in PROGRAMS.values():
        fresh = tmp_path / f"{program.name}.spv"
        compile_program(program, fresh)
        shipped = SPV_DIR / f"{program.name}.spv"
        if not shipped.is_file() or shipped.read_bytes() != fresh.read_bytes():
            stale.append(program.name)
    assert not stale, f"run scripts/compile-shaders.sh; stale SPIR-V: {stale}"
