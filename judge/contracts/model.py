"""The typed contract model (SPEC §3). Frozen dataclasses; built by ``judge.contracts.build``.

Every parsed field keeps the raw text it came from where that text can carry meaning the model
does not capture (free-text shape constraints, notes), so nothing is silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEVICE_OF_BACKEND = {"Cpu": "cpu", "Cuda": "cuda", "Vulkan": "vulkan"}


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Layout:
    """The five layout flags of one operand. ``True`` = accepted."""

    contiguous_required: bool  # contiguous: required (False = accepted)
    strided: bool
    broadcast_stride0: bool
    start_offset: bool
    reverse_strides: bool

    @property
    def accepts_any_awkward(self) -> bool:
        return self.strided or self.broadcast_stride0 or self.start_offset or self.reverse_strides


@dataclass(frozen=True)
class RankRange:
    lo: int = 0
    hi: int | None = None  # None = unbounded ("any")

    def contains(self, rank: int) -> bool:
        return rank >= self.lo and (self.hi is None or rank <= self.hi)

    def __str__(self) -> str:
        if self.hi is None and self.lo == 0:
            return "any"
        if self.hi == self.lo:
            return str(self.lo)
        return f"{self.lo}..={self.hi if self.hi is not None else ''}"


@dataclass(frozen=True)
class ShapeConstraint:
    """``same_as=X``, ``broadcast_to=X``, or free text (kind ``free``)."""

    kind: str  # "same_as" | "broadcast_to" | "free"
    ref: str | None
    text: str


@dataclass(frozen=True)
class InputSpec:
    name: str
    dtypes: tuple[str, ...]
    layout: Layout
    rank: RankRange
    shape_constraint: ShapeConstraint | None
    line: int


@dataclass(frozen=True)
class ParamConstraint:
    """A parsed op-param constraint.

    kinds: ``eq`` (value: float), ``ge_field`` (value: other field name), ``sorted_unique_dims``,
    ``single_dim`` (exactly one dim in 0..rank, that axis non-empty),
    ``product_eq_elem_count`` (value: operand name), ``left_pad_broadcast`` (each axis equals
    the input size or 1, left-padded to input rank), ``unknown`` (text kept; lint warns).
    A constraint text may combine several (joined by ``;``, or a chained ``==``): then kind is
    ``all`` and ``parts`` holds them all; ``each()`` iterates the atomic constraints either way.
    """

    kind: str
    value: Any = None
    text: str = ""
    parts: tuple[ParamConstraint, ...] = ()

    def each(self) -> tuple[ParamConstraint, ...]:
        return self.parts if self.kind == "all" else (self,)


@dataclass(frozen=True)
class ParamField:
    name: str
    kind: str  # "Vec<usize>", "bool", "f64", "i32", "usize", "u32", "f32"
    constraint: ParamConstraint | None = None
    note: str | None = None


VALIDATION_KINDS = ("operand_count", "dtype", "divisible", "index_range", "param_length")


@dataclass(frozen=True)
class Validation:
    """One refusal the kernel's wrapper states (``accept.validations``, SPEC §4 "Error inputs"):
    an input that breaks it must be refused. ``kind`` is one of ``VALIDATION_KINDS``;
    ``input`` names the operand it is about (dtype, index_range), ``axis_of`` the operand whose
    axis bounds the indices, ``expr`` a divisibility ``a % b == 0`` over op params or
    dimensions, ``param`` a list op param whose length must equal the operand count."""

    kind: str
    input: str | None = None
    axis_of: str | None = None
    expr: str | None = None
    param: str | None = None
    note: str | None = None
    stated: bool = True  # False: implicit in the accept clause alone (operand count, dtypes)
    line: int = 0

    def describe(self) -> str:
        parts = [self.kind]
        parts += [f"{k}={v}" for k, v in (("input", self.input), ("axis_of", self.axis_of),
                                          ("expr", self.expr), ("param", self.param)) if v]
        return " ".join(parts)


@dataclass(frozen=True)
class OpParams:
    variant: str | None  # None for ``{ variant: None }``
    fields: tuple[ParamField, ...] = ()

    def field(self, name: str) -> ParamField | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None


@dataclass(frozen=True)
class DtypeRule:
    kind: str  # "passthrough" | "fixed"
    ref: str | None = None  # operand name for passthrough
    dtype: str | None = None  # dtype for fixed

    def __str__(self) -> str:
        return f"passthrough({self.ref})" if self.kind == "passthrough" else f"fixed({self.dtype})"


@dataclass(frozen=True)
class ShapeRule:
    """An output's shape rule. ``same_as``, ``broadcast`` and ``reduce`` are computed from the
    operands' shapes (and reduce's op params); any other kind is a rule a family defines: its
    own shape function computes it from the named operands' shapes and the op params, the way
    Fuel's dispatch computes the pre-allocated output."""

    kind: str  # "same_as" | "broadcast" | "reduce" | a family-defined rule
    refs: tuple[str, ...]  # operands named
    reduce_by: str | None = None  # "dims" | "output_shape" for reduce
    keepdim: str | None = None  # the keepdim argument name for reduce, if given

    def __str__(self) -> str:
        args = list(self.refs)
        if self.kind == "reduce":
            args += [a for a in (self.reduce_by, self.keepdim) if a]
        return f"{self.kind}({', '.join(args)})"


@dataclass(frozen=True)
class OutputSpec:
    name: str
    dtype_rule: DtypeRule
    shape_rule: ShapeRule
    layout_guarantee: str | None
    aliasing: str  # "none" or the aliased operand name for in_place(x)
    line: int


@dataclass(frozen=True)
class Caps:
    awkward_layout_strategy: str | None  # requires_contiguous | handles_strided
    fast_paths: tuple[dict[str, Any], ...] = ()
    in_place: bool = False
    alignment_bytes: int | None = None
    access_granularity_bits: int | None = None


@dataclass(frozen=True)
class CostExpr:
    """An arithmetic expression over n, n_in, n_out, dtype_bytes, in_elems, out_elems.

    ``tree`` is a parsed AST (nested tuples: ("num", v) | ("var", name) | (op, a, b)); evaluate
    with ``judge.contracts.cost.evaluate`` (never ``eval``).
    """

    text: str
    tree: tuple


@dataclass(frozen=True)
class Cost:
    provenance: str | None = None
    cls: str | None = None
    flops: CostExpr | None = None
    memory: dict[str, CostExpr | int] = field(default_factory=dict)
    bytes_moved: CostExpr | None = None
    overhead_ns: float | None = None


@dataclass(frozen=True)
class Precision:
    bit_stable_on_same_hardware: bool | None = None
    max_ulp: int | None = None
    max_relative: float | None = None
    max_absolute: float | None = None
    audited: bool | None = None
    notes: str | None = None
    # A row's output bits do not depend on the other rows of its batch, nor on its position
    # (SPEC §4): true makes batch and position invariance a check; unset, it is only reported.
    batch_invariant: bool | None = None

    @property
    def declares_bound(self) -> bool:
        return any(v is not None for v in (self.max_ulp, self.max_relative, self.max_absolute))


@dataclass(frozen=True)
class Rule:
    """One derived semantic rule and where it came from."""

    value: str  # see SEMANTIC_VALUES
    source: str  # "semantics" | "blurb" | "notes" | "default" | "unspecified"
    evidence: str = ""  # the phrase or key that decided it


# The vocabulary of derived semantics (SPEC §4).
SEMANTIC_VALUES = {
    "nan": ("propagate", "ignore", "to_zero", "unspecified"),
    "ties": ("first_index", "half_to_even", "fair_share", "unspecified"),
    "rounding": ("half_to_even", "half_away_from_zero", "unspecified"),
    "remainder": ("floored", "truncated", "unspecified"),
    # Extrema and clamp: "ordered" puts -0 below +0; "unordered" compares the zeros equal (IEEE),
    # so an extremum may return either zero of an equal pair and a clamp keeps x unless a strict
    # comparison selects a bound.
    "zeros": ("ordered", "unordered", "unspecified"),
    # Extremum reductions: "identity" folds from -inf (max) / +inf (min), so an empty or all-NaN
    # slice under NaN-as-missing gives that infinity.
    "init": ("identity", "unspecified"),
    # Sums and means: "fixed" is a left-to-right fold in the accumulator; "free" leaves the order
    # of summation open, so the overflow of some order's partial sum is admitted.
    "order": ("fixed", "free", "unspecified"),
    # Integer results outside the output format's range: clamped to its ends, or reduced modulo
    # 2^bits (two's complement).
    "overflow": ("saturate", "wrap", "unspecified"),
}

# What each rule admits, for ``judge show`` and failure messages.
RULE_MEANINGS = {
    ("zeros", "ordered"): "-0 orders below +0: max(+0, -0) is +0, min(+0, -0) is -0",
    ("zeros", "unordered"): ("the zeros compare equal: an extremum may return either zero of an "
                             "equal pair; a clamp keeps x unless a strict comparison selects a bound"),
    ("init", "identity"): ("the fold starts from -inf (max) / +inf (min): an empty or all-NaN "
                           "slice under NaN-as-missing gives that infinity"),
    ("order", "fixed"): ("left-to-right fold in the accumulator: where it overflows, its ±inf or "
                         "NaN is the result"),
    ("order", "free"): ("any summation order: ±inf or NaN is also admitted once the partial sums "
                        "of some order reach the accumulator's overflow threshold"),
    ("overflow", "saturate"): "an integer result past the output format's range is clamped to its nearest end",
    ("overflow", "wrap"): "an integer result past the output format's range is taken modulo 2^bits",
}


@dataclass(frozen=True)
class Semantics:
    nan: Rule
    ties: Rule
    rounding: Rule
    remainder: Rule
    zeros: Rule = Rule("unspecified", "unspecified")
    init: Rule = Rule("unspecified", "unspecified")
    order: Rule = Rule("unspecified", "unspecified")
    overflow: Rule = Rule("unspecified", "unspecified")

    def get(self, key: str) -> Rule:
        return getattr(self, key)

    def values(self) -> dict[str, str]:
        """{rule key: value} for every rule, as the oracle takes them."""
        return {key: self.get(key).value for key in SEMANTIC_VALUES}


@dataclass(frozen=True)
class Provider:
    """The front matter's ``provider``: its backend and kernel_source are every block's defaults;
    revision_base seeds ``kernel_revision_hash: auto``."""

    name: str | None = None
    backend: str | None = None
    kernel_source: str | None = None
    link_registry: str | None = None
    revision_base: str | None = None


@dataclass(frozen=True)
class Contract:
    kernel: str
    location: Location
    registrable: bool
    op_kind: str | None
    blurb: str | None
    backend: str  # Cpu | Cuda | Vulkan
    kernel_source: str | None
    entry_point: str | None
    revision: str  # the kernel revision hash (computed for ``auto``)
    inputs: tuple[InputSpec, ...]
    op_params: OpParams
    outputs: tuple[OutputSpec, ...]
    caps: Caps
    cost: Cost
    precision: Precision
    determinism: str  # bitwise | same_hardware_bitwise | nondeterministic
    semantics: Semantics
    tree: dict[str, Any]  # the normalised block tree (what ``judge show --json`` prints)
    suite: str = ""  # the suite root the file was found under, for ids
    section: str = ""  # the ``## `` heading the block sits under
    spelling: str = ""  # "indented" | "flattened": how the block was written
    validations: tuple[Validation, ...] = ()  # as stated in accept.validations

    def __hash__(self) -> int:
        # The tree and cost hold dicts; a contract is identified by where it is and what it says.
        return hash((self.location.file, self.kernel, self.revision))

    @property
    def describe_only(self) -> bool:
        return not self.registrable

    @property
    def test_id(self) -> str:
        """``suites/fuel/reduce.fkc.md::sum_reduce_cuda`` (the pytest item id stem)."""
        return f"{self.location.file}::{self.kernel}"

    @property
    def device(self) -> str:
        return DEVICE_OF_BACKEND[self.backend]

    @property
    def file(self) -> str:
        return self.location.file

    def input(self, name: str) -> InputSpec | None:
        for i in self.inputs:
            if i.name == name:
                return i
        return None

    @property
    def dtype_fan(self) -> tuple[str, ...]:
        """The dtypes that one test item each is made for.

        The operand that the first output's ``passthrough(x)`` names decides (so a BOOL
        condition does not fan); with a fixed output dtype, the first non-BOOL input does.
        Inputs whose dtype list is not the fan keep their own (single) dtype list.
        """
        rule = self.outputs[0].dtype_rule if self.outputs else None
        if rule is not None and rule.kind == "passthrough":
            spec = self.input(rule.ref or "")
            if spec is not None:
                return spec.dtypes
        for spec in self.inputs:
            if spec.dtypes != ("BOOL",):
                return spec.dtypes
        return self.inputs[0].dtypes if self.inputs else ()

    @property
    def handles_strided(self) -> bool:
        return self.caps.awkward_layout_strategy == "handles_strided"


@dataclass(frozen=True)
class ContractFile:
    path: str
    provider: Provider
    fkc_version: Any
    contracts: tuple[Contract, ...]
