"""The CPU's vector and matrix instruction sets per machine, as recorded with its results.

Rendered into docs/_generated/cpu-features.md for the mixed-precision page: which low-
precision arithmetic the CPU offers decides what mixed precision can gain on it.
"""

from __future__ import annotations

from scripts.rendering import names

# What each recorded feature means for float16/bfloat16 training, in a few words.
MEANINGS = {
    "avx512_bf16": "bfloat16 dot products (AVX-512)",
    "avx512_fp16": "float16 arithmetic (AVX-512)",
    "amx_bf16": "bfloat16 matrix tiles (AMX)",
    "amx_tile": "matrix tile registers (AMX)",
    "amx_int8": "int8 matrix tiles (AMX)",
    "avx512_vnni": "int8 dot products (AVX-512)",
}
LOW_PRECISION = ("avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16")


def table(all_data: list[dict]) -> str:
    """One row per machine: the features recorded, and which low-precision units are present."""
    lines = [
        "| Machine | Vector and matrix features recorded | bfloat16 / float16 hardware |",
        "|---|---|---|",
    ]
    for data in all_data:
        machine = data["machine"]
        features = machine.get("cpu_features") or []
        if not features:
            recorded, low = "not recorded on this OS", "–"
        else:
            recorded = ", ".join(f"`{f}`" for f in features)
            present = [f"{MEANINGS[f]}: yes" for f in LOW_PRECISION if f in features]
            absent = [f"no {MEANINGS[f]}" for f in LOW_PRECISION if f not in features]
            low = "; ".join(present + absent)
        lines.append(f"| {names.of(machine)} | {recorded} | {low} |")
    return "\n".join(lines) + "\n"
