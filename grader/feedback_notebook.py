"""The feedback notebook of a graded notebook: the autograder's results, then the student's cells.

A feedback notebook is opened by students and staff, in Jupyter or anything else that renders
notebooks, so nothing in it may run or pretend: it is built from scratch, from cleaned content
only, whatever it is given (the notebook as it ran, or as handed in if it never ran; both are
read as hostile JSON in which any field may hold anything):

- the notebook's metadata is a plain Python kernelspec and language_info, nothing copied (no
  trust, no widget state, no ``grader`` block);
- the first cell is the autograder's results: no cell before it can collapse or cover it, and
  a student's cell that carries the results tag or calls itself results is only a student's cell
  further down (the tag is never copied);
- code cells keep their source as printable, capped text and the outputs that
  ``sandbox.cell_outputs`` allows (stdout and stderr streams, ``text/plain``, PNG images within
  a cap, errors as text), a sane execution count and nothing else;
- the student's Markdown and raw cells become Markdown cells that show their text in a fenced
  code block (see ``_verbatim``);
- no cell metadata or attachments are copied, so no cell is collapsed, hidden or tagged.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
from typing import Any

from grader.report import Report
from sandbox.cell_outputs import OutputBudget, clean_outputs, clean_text, execution_count
from sandbox.protocol import printable

RESULTS_CELL_TAG = "autograder-results"
# What the student's cells may keep of their text: a source each, and all sources together.
MAX_CELLS = 2_000
MAX_SOURCE_CHARS = 100_000
MAX_NOTEBOOK_SOURCE_CHARS = 4 * 2**20
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
LANGUAGE_INFO = {"name": "python"}


def feedback_notebook(report: Report, submitted: Any) -> str:
    """The feedback notebook (nbformat v4 JSON): the results cell first, then the student's
    cells rebuilt from ``report.notebook`` (the notebook as it ran) or, when it never ran, from
    ``submitted`` (the notebook's JSON text as handed in)."""
    import nbformat

    ran = isinstance(report.notebook, dict)
    handed_in = report.notebook if ran else _parsed(submitted)
    results = printable(results_markdown(report)) + "\n\n---\n\n"
    if handed_in is None:
        results += "Your notebook could not be read, so none of its cells are shown."
    else:
        results += (
            f"Below is your notebook {'as it ran' if ran else 'as you handed it in'}. These results are "
            "this first cell only; your Markdown is shown as you wrote it, in code blocks."
        )
    results_cell = _markdown_cell("results", results, tags=[RESULTS_CELL_TAG])
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)},
        "cells": [results_cell, *_student_cells(handed_in)],
    }
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError:  # a fault of this module: never lose the results over it
        results_cell["source"] += "\n\nYour notebook's cells could not be shown."
        notebook["cells"] = [results_cell]
        nbformat.validate(notebook)
    # Plain JSON of the dicts built here, as nbformat writes it (its own writer copies and
    # validates every cell again, seconds for a notebook of thousands of cells).
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _parsed(submitted: Any) -> dict[str, Any] | None:
    if isinstance(submitted, dict):
        return submitted
    try:
        found = json.loads(submitted) if isinstance(submitted, (str, bytes)) else None
    except (ValueError, RecursionError):  # not JSON, too deep, a number too long to read
        return None
    return found if isinstance(found, dict) else None


def _student_cells(notebook: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The student's cells, rebuilt by the allow-list; what is not a cell of a kept kind goes."""
    found = notebook.get("cells") if notebook is not None else None
    cells = found if isinstance(found, list) else []
    budget, source_room = OutputBudget(), MAX_NOTEBOOK_SOURCE_CHARS
    rebuilt: list[dict[str, Any]] = []
    for cell in cells[:MAX_CELLS]:
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            continue
        source = _source(cell.get("source"), min(MAX_SOURCE_CHARS, max(source_room, 0)))
        source_room -= len(source)
        cell_id = f"cell-{len(rebuilt) + 1}"  # ours: the student's ids are not copied either
        if cell["cell_type"] == "code":
            rebuilt.append(
                {
                    "cell_type": "code",
                    "id": cell_id,
                    "metadata": {},
                    "source": source,
                    "execution_count": execution_count(cell.get("execution_count")),
                    "outputs": _png_checked(clean_outputs(cell.get("outputs"), budget)),
                }
            )
        elif source.strip():  # a raw cell's text too: it is shown, never rendered or converted
            info = "markdown" if cell["cell_type"] == "markdown" else "text"
            rebuilt.append(_markdown_cell(cell_id, _verbatim(source, info)))
    if len(cells) > MAX_CELLS:
        rebuilt.append(_markdown_cell("more", f"*{len(cells) - MAX_CELLS} more cells are not shown.*"))
    return rebuilt


def _markdown_cell(cell_id: str, source: str, *, tags: list[str] | None = None) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {"tags": tags} if tags else {}, "source": source}


def _source(value: Any, limit: int) -> str:
    """A cell's source (text, or nbformat's list of lines) as printable text of at most ``limit``
    characters; anything else is no source."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        value = "".join(value)
    if not isinstance(value, str) or limit <= 0:
        return ""
    return clean_text(value[: 4 * limit + 4096].replace("\r\n", "\n").replace("\r", "\n"), limit)


def _png_checked(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``outputs`` with only images that decode as base64 to a PNG (the allow-list checks the
    alphabet and the size); a result left with no data goes."""
    kept = []
    for output in outputs:
        data = output.get("data")
        if isinstance(data, dict) and "image/png" in data and not _is_png(data["image/png"]):
            del data["image/png"]
            if not data:
                continue
        kept.append(output)
    return kept


def _is_png(encoded: str) -> bool:
    try:
        return base64.b64decode(encoded.replace("\n", ""), validate=True).startswith(PNG_SIGNATURE)
    except (binascii.Error, ValueError):
        return False


def _verbatim(text: str, info: str) -> str:
    """A student's Markdown or raw text as a fenced code block, shown exactly as written.

    Escaping ``<`` and ``&`` would leave it rendered, but shows ``&lt;`` in every code span and
    formula the student wrote, and rendered Markdown still reaches its reader through remote
    images, links and math macros; any of it could also draw a heading or table that looks like
    the results. Markdown is written to be read as plain text, and a fenced block renders it
    inert in every front end. The fence is longer than any run of backticks in the text, so no
    line of it can close the block.
    """
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def results_markdown(report: Report) -> str:
    """The results as a notebook cell: the verdict, then every test with its outcome.

    Messages hold values from the student's code, so they go in fenced blocks, where Markdown
    and HTML are not interpreted.
    """
    lines = [
        "## Autograder results",
        "",
        f"**{report.problem}: {report.verdict}**, {report.score:g} / {report.max_score:g} points "
        f"({report.duration_s:.1f} s)",
    ]
    if report.message:
        lines += ["", _fenced(report.message)]
    if report.tests:
        lines += ["", "| test | kind | outcome | points |", "|---|---|---|---|"]
        for test in report.tests:
            kind = "hidden" if test.hidden else "visible"
            told = f"{_cell(test.tested_property)}<br>{_code(test.name)}" if test.tested_property else _code(test.name)
            lines.append(f"| {told} | {kind} | {test.outcome} | {test.points:g} / {test.max_points:g} |")
        failed = [test for test in report.tests if test.outcome != "passed" and test.feedback]
        for test in failed:
            kind = "hidden" if test.hidden else "visible"
            lines += ["", f"**`{test.name}`** ({kind} test)", "", _fenced(test.feedback)]
        if any(test.hidden for test in report.tests):
            lines += ["", "Hidden tests are named and explained here; their code is not shown."]
    if report.insight and report.insight.get("schema"):
        lines += ["", *insight_markdown(report.insight)]
    return "\n".join(lines)


def insight_markdown(insight: dict[str, Any]) -> list[str]:
    """The JAX insight (``grader.insight``) as the web page shows it: counts and times per call,
    warnings, and the jaxpr, StableHLO and cost of one input, the reference's beside them."""
    totals, hidden = insight.get("visible_totals", {}), insight.get("hidden_totals", {})
    # The page's words and its one count (grader.insight): every figure is of the visible calls.
    calls, traces, compiles = totals.get("calls", 0), totals.get("traces", 0), totals.get("compiles", 0)
    lines = [
        "### What JAX did with your code",
        "",
        f"In the visible tests' {calls} call{_plural(calls)}, JAX traced your code {traces} time{_plural(traces)} "
        f"and XLA compiled {compiles} program{_plural(compiles)} "
        f"({_compiling_s(totals):.2f} s compiling, {totals.get('run_s', 0):.2f} s running)."
        if calls
        else "The visible tests did not call your code.",
    ]
    if hidden.get("calls"):
        lines[-1] += (
            f" The hidden tests made {hidden['calls']} calls; what JAX did in them is not counted here, "
            "as their inputs are not shown."
        )
    for warning in insight.get("warnings", []):
        lines += ["", f"**Warning:** {_cell(warning)}"]
    for note in insight.get("notes", []):
        lines += ["", f"**Note:** {_cell(note)}"]
    if calls := insight.get("calls"):
        lines += [
            "",
            INSIGHT_LEGEND,
            "",
            "| Call | Inputs | Traced | Compiled | Time compiling | Time running |",
            "|---|---|---|---|---|---|",
        ]
        for call in calls:
            lines.append(
                f"| {_code(call['call'])} | {_code(call['inputs'])} | {call['traces']} | {call['compiles']} | "
                f"{_compiling_s(call):.3f} s | {call['run_s']:.3f} s |"
            )
    if artifacts := insight.get("artifacts"):
        lines += ["", f"#### What JAX made of {_code(insight.get('input', ''))}"]
        if artifacts.get("source") == "own_executable":
            lines += [
                "",
                "Your function lowers and compiles for itself, so it cannot be traced as a whole: "
                "this is the executable your own code compiled for this input.",
            ]
        lines += _artifacts_markdown("Yours", artifacts)
        if reference := insight.get("reference"):
            lines += _artifacts_markdown("The reference", reference)
    if failed := insight.get("failed"):
        lines += ["", "The insight could not be made:", "", _fenced(failed)]
    return lines


INSIGHT_LEGEND = (
    "Each row is a call from a visible test. **Traced**: JAX ran your Python to record its operations. "
    "**Compiled**: XLA turned that record into a program for this input shape (a program it already had is "
    "reused, not counted). **Time compiling** includes tracing."
)


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


def _compiling_s(figures: dict[str, Any]) -> float:
    """Tracing, lowering and compiling together (``setup_s``); XLA's seconds alone in an insight
    stored before it was counted so (schema 1)."""
    return float(figures.get("setup_s", figures.get("compile_s", 0)))


def _artifacts_markdown(heading: str, artifacts: dict[str, Any]) -> list[str]:
    cost = artifacts.get("cost", {})
    figures = [f"{cost[key]:,.0f} {label}" for key, label in COST_LABELS if key in cost]
    lines = ["", f"**{heading}**" + (f": {', '.join(figures)}." if figures else "")]
    for key, label in (("jaxpr", "jaxpr"), ("stablehlo", "StableHLO"), ("failed", "not made")):
        if text := artifacts.get(key):
            lines += ["", f"{label}:", "", _fenced(text)]
    return lines


# The executable's costs, in the order and words of the web page's insight panel.
COST_LABELS = (("flops", "FLOPs"), ("transcendentals", "transcendentals"), ("bytes_accessed", "bytes accessed"))


def _cell(text: str) -> str:
    """Prose in a Markdown line or table cell: no HTML, no new cells, one line."""
    return html.escape(str(text)).replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """An inline code span in a table cell (HTML is not read there; a pipe still ends the cell)."""
    return "`" + str(text).replace("`", "'").replace("|", "\\|").replace("\n", " ") + "`"


def _fenced(text: str) -> str:
    return "```text\n" + text.replace("```", "'''") + "\n```"
