"""The SPIR-V programs of the Vulkan backend: which shader source and defines build each one.

The SPIR-V is compiled ahead of time with ``glslangValidator -V`` and shipped in ``spv/`` (so a
machine that runs the kernels needs no shader compiler); ``scripts/compile-shaders.sh`` rebuilds
it from ``shaders/*.comp`` and a test checks that the shipped files match the sources.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHADER_DIR = HERE / "shaders"
SPV_DIR = HERE / "spv"


@dataclass(frozen=True)
class Program:
    name: str  # the .spv file stem
    source: str  # the .comp file in shaders/
    defines: tuple[str, ...] = ()


# The mixed-precision MatMul kernels, one per [lhs, rhs, out] key (matmul_mixed.comp).
MIXED_MATMUL_KEYS = (("f32", "bf16", "f32"), ("bf16", "bf16", "f32"), ("bf16", "bf16", "bf16"),
                     ("f16", "f16", "f16"), ("f16", "f16", "f32"))

# (source, target) pairs of cast_bits.comp, lower case as in the program names.
BIT_CASTS = (("f32", "f64"), ("f64", "f32"),
             *((a, b) for h in ("f32", "f16", "bf16") for a, b in (("f8e4m3", h), (h, "f8e4m3"))))

PROGRAMS: dict[str, Program] = {
    p.name: p
    for p in (
        Program("unary_f32", "unary.comp", ("DT_F32",)),
        Program("unary_f16", "unary.comp", ("DT_F16",)),
        Program("unary_f64", "unary.comp", ("DT_F64",)),
        Program("unary_bf16", "unary_bf16.comp"),
        Program("binary_f32", "binary.comp", ("DT_F32",)),
        Program("binary_f16", "binary.comp", ("DT_F16",)),
        Program("binary_f64", "binary.comp", ("DT_F64",)),
        Program("binary_bf16", "binary.comp", ("DT_BF16",)),
        Program("reduce_f32", "reduce.comp"),
        Program("argreduce_f32", "argreduce.comp", ("DT_F32",)),
        Program("argreduce_f16", "argreduce.comp", ("DT_F16",)),
        Program("argreduce_f64", "argreduce.comp", ("DT_F64",)),
        Program("argreduce_bf16", "argreduce.comp", ("DT_BF16",)),
        Program("copy", "copy.comp"),
        Program("matmul_f32", "matmul.comp"),
        *(Program(f"matmul_{a}_{b}_{o}", "matmul_mixed.comp", (f"LHS_{a.upper()}", f"RHS_{b.upper()}", f"OUT_{o.upper()}"))
          for a, b, o in MIXED_MATMUL_KEYS),
        *(Program(f"cumsum_{d.lower()}", "cumsum.comp", (f"DT_{d}",)) for d in ("F32", "F16", "F64", "BF16")),
        *(Program(f"cast_{a}_{b}", "cast.comp", (f"HALF_{h.upper()}", *(("NARROW",) if a == "f32" else ())))
          for a, b, h in (("f32", "f16", "f16"), ("f16", "f32", "f16"), ("f32", "bf16", "bf16"),
                          ("bf16", "f32", "bf16"))),
        *(Program(f"cast_{a}_{b}", "cast_bits.comp", (f"SRC_{a.upper()}", f"DST_{b.upper()}"))
          for a, b in BIT_CASTS),
        Program("move", "move.comp"),
        Program("rows_f32", "rows.comp"),
    )
}


@cache
def spirv(name: str) -> bytes:
    """The shipped SPIR-V of one program."""
    path = SPV_DIR / f"{name}.spv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run scripts/compile-shaders.sh")
    return path.read_bytes()


def compile_program(program: Program, out: Path, *, compiler: str | None = None) -> None:
    """Compile one program to ``out`` with glslangValidator."""
    compiler = compiler or shutil.which("glslangValidator")
    if compiler is None:
        raise FileNotFoundError("glslangValidator is not installed (apt-get install glslang-tools)")
    cmd = [compiler, "-V", *(f"-D{d}" for d in program.defines), "-o", str(out),
           str(SHADER_DIR / program.source)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}{done.stderr}")


def compile_all(out_dir: Path = SPV_DIR) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for program in PROGRAMS.values():
        out = out_dir / f"{program.name}.spv"
        compile_program(program, out)
        written.append(out)
    return written


if __name__ == "__main__":
    for path in compile_all():
        print(path.relative_to(HERE.parent.parent))
