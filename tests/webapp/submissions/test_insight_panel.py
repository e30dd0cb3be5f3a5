"""The insight panel (submissions/_insight.html) as a student reads it: one count for the headline
and the table, rows in plain words, and the reports stored before in the older shape still shown."""

from __future__ import annotations

import re
from typing import Any

from django.template.loader import render_to_string

from grader.call_records import CallRecord, JaxEvents
from grader.insight import collect
from grader.proxy import SubmissionProxy


def call(name: str, compiles: int, shape: tuple[int, ...] = (4,), seconds: float = 0.1) -> CallRecord:
    events = JaxEvents(
        trace_events=compiles,
        lowering_events=compiles,
        backend_compile_events=compiles,
        compile_seconds=seconds / 2,
        staging_seconds=seconds / 4,
        seconds=seconds,
    )
    return CallRecord(name, events, ((shape, "float32"),))


def panel(insight: dict[str, Any]) -> str:
    html = render_to_string("submissions/_insight.html", {"result": {"insight": insight, "verdict": "accepted"}})
    assert "{#" not in html and "grader.insight" not in html  # the template's own comments stay in it
    return " ".join(html.split())


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def positive_sum_like() -> dict[str, Any]:
    """What positive_sum's grading leaves: two plain calls that compile op by op, the tests' own
    jax.jit of it, and hidden calls the panel does not count."""
    proxy = SubmissionProxy(None)  # type: ignore[arg-type]  # a finished grading's record only
    proxy.calls = [
        call("positive_sum", 4),
        call("positive_sum", 4, (3,)),
        CallRecord("jax.jit(positive_sum)", JaxEvents(), ()),
        call("jax.jit(positive_sum)", 1, (2,)),
        *[call("positive_sum", 4, (n,)) for n in range(5, 30)],
    ]
    proxy.hidden_from = 4
    return collect(proxy, None, with_reference=False)


def test_the_headline_says_what_the_rows_add_up_to_in_plain_words():
    insight = positive_sum_like()
    html = panel(insight)
    headline = text_of(re.search(r"<summary[^>]*>(.*?)</summary>", html)[1])  # type: ignore[index]
    assert headline == (
        "JAX insight: in the visible tests' 4 calls, JAX traced your code 9 times and XLA compiled 9 programs "
        "(0.23 s compiling, 0.08 s running)"
    ), headline
    # The table's figures are the headline's: the rows' compiles add up to it.
    cells = re.findall(r'data-label="Compiled"[^>]*>(\d+)<', html)
    assert sum(int(cell) for cell in cells) == insight["visible_totals"]["compiles"] == 9
    # No note to jit what the tests jit themselves, and hidden calls are not counted here.
    assert "not jitted" not in html and 'data-testid="insight-note"' not in html
    assert "The hidden tests made 25 calls; what JAX did in them is not counted here" in text_of(html)


def test_each_row_reads_without_knowing_jax_s_internals():
    html = panel(positive_sum_like())
    text = text_of(html)
    assert (
        "Each row is a call from a visible test. Traced : JAX ran your Python to record its operations. "
        "Compiled : XLA turned that record into a program for this input shape" in text
    )
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", html)
    assert headers == ["Call", "Inputs", "Traced", "Compiled", "Time compiling", "Time running"]
    # A call that compiled several programs outside jax.jit says why; the jitted one does not.
    rows = re.findall(r"<tr><td>(.*?)</tr>", html)
    assert len(rows) == 3
    assert "outside jax.jit: each operation was traced and compiled on its own" in rows[0]
    assert "outside jax.jit" not in rows[2] and "jax.jit(positive_sum)" in rows[2]
    # On a phone each cell is named (table.cards): the same words as the headers.
    assert re.findall(r'data-label="([^"]+)"', rows[0]) == ["Inputs", "Traced", "Compiled", "Compiling", "Running"]
    assert "0.075 s" in rows[0] and "0.025 s" in rows[0]  # compiling with tracing (0.05 + 0.025), running
    assert "1 other call traced and compiled nothing" in text


def test_an_insight_stored_in_the_first_shape_still_renders():
    old = {
        "schema": 1,
        "calls": [{"call": "f", "inputs": "float32[3]", "traces": 1, "lowerings": 1, "compiles": 1,
                   "compile_s": 0.5, "staging_s": 0.1, "run_s": 0.1, "total_s": 0.7}],
        "quiet_calls": 2,
        "visible_totals": {"calls": 3, "traces": 1, "lowerings": 1, "compiles": 1, "compile_s": 0.5,
                           "staging_s": 0.1, "run_s": 0.1, "total_s": 0.7},
        "hidden_totals": {"calls": 0},
        "warnings": [],
        "notes": ["f is not jitted: JAX ran each jnp operation on its own and compiled 69 small programs"],
    }  # fmt: skip
    text = text_of(panel(old))
    assert "in the visible tests' 3 calls, JAX traced your code 1 time and XLA compiled 1 program" in text
    assert "(0.50 s compiling, 0.10 s running)" in text  # XLA's seconds: the first shape kept no more
    assert "0.500 s" in text and "2 other calls traced and compiled nothing: they ran" in text
    assert "ℹ f is not jitted" in text  # its note as it was written
