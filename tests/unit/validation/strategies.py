"""Hypothesis strategies for payload schemas (Draft 2020-12, with `$defs` that may recurse and
loop, fan-out, patterns both regex engines read alike and ones they read differently) and for
payloads that hit their edges."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

NAMES = ["a", "b", "c"]
REFS = ["#", "#/$defs/d0", "#/$defs/d1", "#/$defs/d2"]
PATTERNS = ["^a", "^[a-c]+$", r"^\d{2}$", "b|c", r"^\s$", "^.$", r"^\S+$", "^x-"]
FORMATS = ["regex", "date", "email", "ipv4", "duration", "uuid"]
TEXTS = ["", "a", "ab", "x-1", "12", " ", "\u00a0", "\u2028", "(?=a)", "[", "a{2}", "2024-02-30",
         "2024-01-01", "a@b", "1.2.3.4", "P1D", "\u0663\u0663"]
NUMBERS = [0, 1, -1, 2, 3, 0.07, 0.5, 1.0, 2**40, 1e300]


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    types = st.sampled_from(["string", "integer", "number", "object", "array", "boolean", "null"])
    return st.one_of(
        st.builds(lambda t: {"type": t}, types | st.lists(types, min_size=1, max_size=2,
                                                         unique=True)),
        st.builds(lambda v: {"enum": v}, st.lists(st.sampled_from([*TEXTS[:4], *NUMBERS[:4],
                                                                   None, True]),
                                                  min_size=1, max_size=4)),
        st.builds(lambda v: {"const": v}, st.sampled_from([*TEXTS[:3], 1, 1.0, True, None,
                                                            [1], {"a": 1}])),
        st.builds(lambda p: {"pattern": p}, st.sampled_from(PATTERNS)),
        st.builds(lambda f: {"format": f}, st.sampled_from(FORMATS)),
        st.builds(lambda n: {"minLength": n}, st.integers(0, 3)),
        st.builds(lambda n: {"maxItems": n}, st.integers(0, 3)),
        st.builds(lambda n: {"minProperties": n}, st.integers(0, 2)),
        st.builds(lambda m: {"multipleOf": m}, st.sampled_from([0.01, 0.5, 3])),
        st.builds(lambda m: {"maximum": m}, st.sampled_from([0, 2.5, 100])),
        st.just({"uniqueItems": True}),
        st.builds(lambda r: {"required": r}, st.lists(st.sampled_from(NAMES), max_size=2,
                                                      unique=True)),
        st.builds(lambda r: {"$ref": r}, st.sampled_from(REFS)),
        st.sampled_from([{}, {"not": {}}]),
    )


def _compound(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    branches = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        st.builds(lambda b: {"anyOf": b}, branches),
        st.builds(lambda b: {"oneOf": b}, branches),
        st.builds(lambda b: {"allOf": b}, branches),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda i, t, e: {"if": i, "then": t, "else": e}, inner, inner, inner),
        st.builds(lambda p: {"properties": p}, st.dictionaries(st.sampled_from(NAMES), inner,
                                                               max_size=2)),
        st.builds(lambda p, a: {"patternProperties": p, "additionalProperties": a},
                  st.dictionaries(st.sampled_from(PATTERNS), inner, max_size=2),
                  inner | st.booleans()),
        st.builds(lambda s: {"propertyNames": s}, inner),
        st.builds(lambda s: {"items": s}, inner),
        st.builds(lambda p, s: {"prefixItems": p, "items": s}, st.lists(inner, max_size=2),
                  inner | st.booleans()),
        st.builds(lambda s: {"contains": s}, inner),
        st.builds(lambda p, u: {"properties": p, "unevaluatedProperties": u},
                  st.dictionaries(st.sampled_from(NAMES), inner, max_size=2),
                  inner | st.booleans()),
        st.builds(lambda p, u: {"prefixItems": p, "unevaluatedItems": u},
                  st.lists(inner, max_size=2), inner | st.booleans()),
        st.builds(lambda d: {"dependentSchemas": d}, st.dictionaries(st.sampled_from(NAMES),
                                                                     inner, max_size=1)),
    )


SUBSCHEMAS = st.recursive(_leaf(), _compound, max_leaves=8)
SCHEMAS = st.builds(
    lambda root, defs: {**root, "$defs": defs},
    SUBSCHEMAS,
    st.fixed_dictionaries({"d0": SUBSCHEMAS, "d1": SUBSCHEMAS, "d2": SUBSCHEMAS}),
)
"""A payload schema whose root and three `$defs` may refer to each other."""

SCALARS = st.none() | st.booleans() | st.sampled_from(NUMBERS) | st.sampled_from(TEXTS)
PAYLOADS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from([*NAMES, "x-1", "12"]), inner, max_size=4),
    max_leaves=12,
)


def values_in(payload: Any) -> int:
    """JSON values in `payload`, keys counted as values (`propertyNames` checks them)."""
    if isinstance(payload, dict):
        return 1 + sum(1 + values_in(item) for item in payload.values())
    if isinstance(payload, list):
        return 1 + sum(values_in(item) for item in payload)
    return 1
