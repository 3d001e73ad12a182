"""The JSON Schema of ``measured-cost.json`` (format ``judge-measured-cost/1``)."""

from __future__ import annotations

_NUM = {"type": ["number", "null"]}
_COUNT = {"type": "integer", "minimum": 0}
_SIZE = {
    "type": "object",
    "required": ["n", "work", "reps", "stable", "median_ns", "q1_ns", "q3_ns", "min_ns",
                 "spread", "host_bytes", "device_bytes"],
    "properties": {
        "n": {"type": "integer", "minimum": 1}, "work": {"type": "number", "minimum": 0},
        "reps": {"type": "integer", "minimum": 1}, "stable": {"type": "boolean"},
        "median_ns": {"type": "number", "exclusiveMinimum": 0},
        "q1_ns": {"type": "number", "minimum": 0}, "q3_ns": {"type": "number", "minimum": 0},
        "min_ns": {"type": "number", "minimum": 0}, "spread": {"type": "number", "minimum": 0},
        "host_bytes": {"type": ["integer", "null"], "minimum": 0},
        "device_bytes": {"type": ["integer", "null"], "minimum": 0},
    },
}
_MEMORY = {
    "type": "object",
    "required": ["tier", "promised_bytes", "measured_bytes", "method", "verdict"],
    "properties": {
        "tier": {"enum": ["host_bytes", "device_bytes"]},
        "promised_bytes": _NUM, "measured_bytes": _COUNT, "method": {"type": "string"},
        "verdict": {"enum": ["as_promised", "above", "below", "unpromised"]},
    },
}
_ENTRY = {
    "type": "object",
    "required": ["kernel", "file", "revision", "backend", "device", "dtype", "status", "reason",
                 "work", "work_expr", "unit", "clock", "overhead_ns", "ns_per_unit",
                 "rate_per_s", "largest_rate_per_s", "fit_rms_rel", "roofline_fraction",
                 "sizes", "memory",
                 "findings"],
    "properties": {
        "kernel": {"type": "string", "minLength": 1},
        "revision": {"type": "string", "minLength": 1},
        "device": {"enum": ["cpu", "cuda", "vulkan"]},
        "path": {"enum": ["contiguous", "strided", "broadcast"]},  # absent: contiguous
        "status": {"enum": ["measured", "error", "unsupported"]},
        "work": {"enum": ["bytes_moved", "flops", "n", ""]},
        "unit": {"enum": ["B", "flop", "elem", ""]},
        "overhead_ns": {"type": ["number", "null"], "minimum": 0},
        "ns_per_unit": {"type": ["number", "null"], "minimum": 0},
        "rate_per_s": _NUM, "largest_rate_per_s": _NUM, "fit_rms_rel": _NUM,
        "roofline_fraction": _NUM,
        "sizes": {"type": "array", "items": _SIZE},
        "memory": {"type": "array", "items": _MEMORY},
        "findings": {"type": "array", "items": {"type": "string"}},
    },
    "allOf": [{
        "if": {"properties": {"status": {"const": "measured"}}},
        "then": {"properties": {"overhead_ns": {"type": "number"},
                                "ns_per_unit": {"type": "number"},
                                "sizes": {"minItems": 2}}},
    }],
}
_PATH_COST = {
    "type": "object",
    "required": ["kernel", "overhead_ns", "work", "work_expr", "ns_per_unit", "rate_per_s",
                 "largest_rate_per_s", "fit_rms_rel", "roofline_fraction", "sizes"],
    "properties": {
        "overhead_ns": {"type": "number", "minimum": 0},
        "ns_per_unit": {"type": "number", "minimum": 0},
        "sizes": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    },
}
# The contiguous path's coefficients, and under ``paths`` the strided and broadcast ones.
_COST = {**_PATH_COST, "properties": {**_PATH_COST["properties"], "paths": {
    "type": "object", "propertyNames": {"enum": ["strided", "broadcast"]},
    "additionalProperties": _PATH_COST}}}
_ROOFLINE = {
    "type": "object",
    "required": ["source", "clock", "bytes_per_s", "best_bytes_per_s", "largest_bytes_per_s",
                 "overhead_ns", "sizes"],
    "properties": {"source": {"enum": ["backend", "numpy.copyto", "none"]},
                   "bytes_per_s": _NUM, "sizes": {"type": "array"}},
}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "measured-cost.json",
    "type": "object",
    "required": ["format", "judge_version", "started_at", "platform", "libraries", "options",
                 "devices", "costs", "entries"],
    "properties": {
        "format": {"const": "judge-measured-cost/1"},
        "libraries": {"type": "object", "additionalProperties": {"type": "string"}},
        "devices": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["backend", "device_class", "describe", "roofline"],
            "properties": {"roofline": _ROOFLINE}}},
        "costs": {"type": "object", "additionalProperties": {  # revision
            "type": "object", "additionalProperties": {  # device key
                "type": "object", "minProperties": 1,
                "additionalProperties": _COST}}},  # dtype
        "entries": {"type": "array", "items": _ENTRY},
    },
}


def validate(document: dict) -> None:
    """Raise ``jsonschema.ValidationError`` if ``document`` is not a measured-cost file."""
    import jsonschema

    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
