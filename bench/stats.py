"""What the benchmarks share: the problems they time and how they summarise timings."""

BUNDLED_PROBLEMS = ["aot_compiled_sum", "compile_for", "jaxpr_primitives"]


def p90(values: list[float]) -> float:
    """The 90th percentile, by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
