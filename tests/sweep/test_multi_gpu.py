"""An F32 sweep spread over several GPUs equals the one-GPU sweep, and each process is pinned to
the GPU of its slot and sees no other (the GPUs are faked: the reference runs on the CPU, the
kernel is numpy's, and CUDA_VISIBLE_DEVICES is all a process learns of its GPU)."""

from __future__ import annotations

import pytest

from judge.sweep import gpu_f32
from judge.sweep.multi_gpu import split_chunks, sweep_f32_on

CHUNKS = [0, 5, 0x3F800, 0x3F801, 0xBF800, 0x7F800, 0xC1F00]  # of 2^12 inputs: around 1, inf, NaN
TIMING = ("seconds", "started_at")


def test_chunks_are_dealt_round_robin():
    assert split_chunks([0, 1, 2, 3, 4], ("0", "1")) == [[0, 2, 4], [1, 3]]
    assert split_chunks([7], ("0", "1", "2")) == [[7], [], []]


@pytest.mark.slow
def test_two_gpus_give_the_one_gpu_sweep_and_each_sees_only_its_own(reference):
    from judge.registry import default_registry

    contract = reference("exp")
    numpy = default_registry().load_all().backends["numpy"]
    one = gpu_f32.sweep_f32(contract, numpy, chunk_log2=12, chunks=CHUNKS, device="cpu", log=lambda m: None)
    two = sweep_f32_on(("3", "5"), contract, numpy, chunk_log2=12, chunks=CHUNKS, device="cpu")
    a = {k: v for k, v in one.row.as_dict().items() if k not in TIMING}
    b = {k: v for k, v in two.row.as_dict().items() if k not in TIMING}
    assert a == b
    for key in ("ulp_histogram", "worst", "over_bound", "settled", "cross_checked", "nan", "inf"):
        assert one.metrics[key] == two.metrics[key], key
    assert two.metrics["gpus"] == {"3": {"visible": "3", "chunks": CHUNKS[0::2]},
                                   "5": {"visible": "5", "chunks": CHUNKS[1::2]}}
