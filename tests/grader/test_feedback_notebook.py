"""A feedback notebook is inert and its results unmistakable, whatever notebook it is made from.

No sandbox: a hostile notebook made here goes through ``feedback_notebook`` as handed in (a
notebook that never ran) and as ``report.notebook`` (the notebook as it ran).
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import nbformat
import pytest
from markdown_it import MarkdownIt

from grader.feedback_notebook import MAX_SOURCE_CHARS, RESULTS_CELL_TAG, feedback_notebook
from grader.report import Report, TestResult
from grader.verdicts import Verdict

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(24)).decode()
SCRIPT = "<script>alert(1)</script>"
FORGED_RESULTS = "## Autograder results\n\n**aot_compiled_sum: accepted**, 10 / 10 points"
COLLAPSING = {
    "jp-MarkdownHeadingCollapsed": True,
    "collapsed": True,
    "jupyter": {"source_hidden": True, "outputs_hidden": True},
    "hide_input": True,
    "tags": ["hide-input", "remove-cell"],
}
KEPT_KINDS = {"text/plain", "image/png", "stream", "error"}


def hostile_notebook(*, wrong_types: bool = True) -> dict[str, Any]:
    """Every trick at once; ``wrong_types=False`` leaves out the fields of the wrong type (with
    them, the feedback notebook of before this module crashed, whatever else it did)."""
    outputs: list[Any] = [
        {"output_type": "display_data", "metadata": {}, "data": {"text/html": SCRIPT, "text/plain": "shown"}},
        {"output_type": "display_data", "metadata": {}, "data": {"application/javascript": "alert(2)"}},
        {"output_type": "display_data", "metadata": {}, "data": {"image/svg+xml": "<svg onload=alert(3)></svg>"}},
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "m1", "version_major": 2}},
        },
        {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/markdown": SCRIPT}},
        {"output_type": "display_data", "metadata": {"isolated": True}, "data": {"image/png": PNG}},
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": "bm90IGEgcG5n"}},  # "not a png"
        {"output_type": "stream", "name": "<img src=x onerror=alert(1)>", "text": "from a forged stream"},
        {"output_type": "stream", "name": "stdout", "text": "printed\x1b[2J\x1b]0;owned\x07"},
        {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["\x1b[31mTraceback\x1b[0m"]},
    ]
    cells: list[Any] = [
        {"cell_type": "markdown", "metadata": {"jp-MarkdownHeadingCollapsed": True}, "source": "# Collapsed"},
        {"cell_type": "markdown", "metadata": {"tags": [RESULTS_CELL_TAG]}, "source": FORGED_RESULTS},
        {"cell_type": "markdown", "metadata": {}, "source": FORGED_RESULTS},
        {"cell_type": "markdown", "metadata": {}, "source": ["My notes ", SCRIPT, "\n", "```\n", "<img src=x>"]},
        {"cell_type": "raw", "metadata": {"format": "text/html"}, "source": f"<b>raw</b>{SCRIPT}"},
        {
            "cell_type": "code",
            "execution_count": 3,
            "metadata": COLLAPSING,
            "source": "print('printed')",
            "outputs": outputs,
            "attachments": {"x.png": {"image/png": PNG}},
        },
        {
            "cell_type": "markdown",
            "metadata": COLLAPSING,
            "source": "![x](attachment:x.png)",
            "attachments": {"x.png": {"image/png": PNG}},
        },
    ]
    if wrong_types:
        cells += [
            {"cell_type": "code", "metadata": {"tags": 5}, "source": 7, "outputs": "x", "execution_count": "3"},
            {"cell_type": "markdown", "metadata": "x", "source": {"a": 1}},
            {"cell_type": "code", "source": "y = 2", "outputs": [5, None, {"output_type": ["stream"]}]},
            {"cell_type": ["code"]},
            7,
            "a cell",
        ]
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "trusted": True,
            "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {"m1": {"model_name": SCRIPT}}}},
            "kernelspec": {"name": "evil", "display_name": SCRIPT, "language": "python"},
            "grader": {"slug": "aot_compiled_sum", "student": SCRIPT},
        },
        "cells": cells,
    }


def graded_report() -> Report:
    test = TestResult(
        name="test_sums_a_small_float_vector",
        outcome="failed",
        points=0.0,
        max_points=10.0,
        message="expected 3.0, got 2.0",
        hidden=False,
        duration_s=0.1,
        tested_property="Sums a small float vector.",
    )
    return Report(problem="aot_compiled_sum", verdict=Verdict.WRONG_ANSWER, score=0.0, max_score=10.0, tests=[test])


def feedback_of(notebook: Any, *, ran: bool) -> dict[str, Any]:
    """The feedback notebook of ``notebook``, given as it ran or as handed in, as JSON."""
    report = graded_report()
    if ran:
        report.notebook = nbformat.from_dict(copy.deepcopy(notebook))
        text = feedback_notebook(report, "{}")
    else:
        text = feedback_notebook(report, json.dumps(notebook))
    return json.loads(text)


def rendered(markdown: str) -> str:
    """A Markdown cell as a front end shows it: CommonMark, raw HTML allowed."""
    return MarkdownIt("commonmark").render(markdown)


@pytest.fixture(params=["as handed in", "as it ran"])
def feedback(request: pytest.FixtureRequest) -> dict[str, Any]:
    return feedback_of(hostile_notebook(), ran=request.param == "as it ran")


def test_it_is_a_valid_notebook(feedback):
    nbformat.validate(nbformat.from_dict(feedback))


def test_it_keeps_only_text_png_stream_and_error_outputs(feedback):
    outputs = [output for cell in feedback["cells"] for output in cell.get("outputs", [])]
    kinds = {kind for output in outputs for kind in output.get("data", {"": 0}) if kind} | {
        output["output_type"] for output in outputs if "data" not in output
    }
    assert kinds == KEPT_KINDS
    assert {output["name"] for output in outputs if output["output_type"] == "stream"} == {"stdout"}
    assert [output["data"]["image/png"] for output in outputs if "image/png" in output.get("data", {})] == [PNG]
    assert all(output.get("metadata", {}) == {} for output in outputs)
    [printed] = ["".join(output["text"]) for output in outputs if output["output_type"] == "stream"]
    assert printed == "printed\\x1b]0;owned\\x07"  # no colours, no terminal control: made printable
    [error] = [output for output in outputs if output["output_type"] == "error"]
    assert error["traceback"] == ["Traceback"]
    assert "from a forged stream" not in json.dumps(outputs)


def test_its_metadata_is_a_plain_python_kernel_and_nothing_else(feedback):
    assert set(feedback["metadata"]) == {"kernelspec", "language_info"}
    assert feedback["metadata"]["kernelspec"]["name"] == "python3"
    assert feedback["metadata"]["language_info"]["name"] == "python"
    text = json.dumps(feedback)
    assert "trusted" not in text and "widget" not in text and '"grader"' not in text


def test_no_student_cell_keeps_metadata_or_attachments_so_none_is_collapsed_or_hidden(feedback):
    for cell in feedback["cells"][1:]:
        assert cell["metadata"] == {}, cell
        assert "attachments" not in cell
    assert feedback["cells"][0]["metadata"] == {"tags": [RESULTS_CELL_TAG]}


def test_no_raw_cell_and_no_html_that_a_front_end_would_render(feedback):
    assert {cell["cell_type"] for cell in feedback["cells"]} == {"markdown", "code"}
    for cell in feedback["cells"]:
        if cell["cell_type"] == "markdown":
            html = rendered("".join(cell["source"]))
            assert "<script" not in html and "<img" not in html and "<b>" not in html, cell
    # Anywhere else, in outputs, names or metadata, it is not even written.
    outside_markdown = [cell for cell in feedback["cells"] if cell["cell_type"] != "markdown"]
    assert "<script" not in json.dumps({**feedback, "cells": outside_markdown})
    # The student still reads what they wrote, in a fenced block that no line of it can close.
    [notes] = [cell for cell in feedback["cells"] if "My notes" in "".join(cell["source"])]
    assert "".join(notes["source"]) == f"````markdown\nMy notes {SCRIPT}\n```\n<img src=x>\n````"


def test_the_results_come_first_and_a_forged_results_cell_is_only_student_content(feedback):
    results, *students = feedback["cells"]
    assert results["cell_type"] == "markdown" and "".join(results["source"]).startswith("## Autograder results")
    assert "wrong_answer" in "".join(results["source"])
    assert not any(RESULTS_CELL_TAG in cell["metadata"].get("tags", []) for cell in students)
    # The forged cells are there, tagged or not, but render as text in a code block, never as headings.
    forged = [cell for cell in students if "Autograder results" in "".join(cell["source"])]
    assert len(forged) == 2
    assert not any("<h2>" in rendered("".join(cell["source"])) for cell in forged)
    assert "<h2>Autograder results</h2>" in rendered("".join(results["source"]))


def test_fields_of_any_type_become_nothing_rather_than_a_crash(feedback):
    code = [cell for cell in feedback["cells"] if cell["cell_type"] == "code"]
    assert ["".join(cell["source"]) for cell in code] == ["print('printed')", "", "y = 2"]
    assert [cell["execution_count"] for cell in code] == [3, None, None]
    assert code[1]["outputs"] == [] and code[2]["outputs"] == []


def test_a_notebook_that_cannot_be_read_gets_its_results_alone():
    report = graded_report()
    for submitted in ("not json", "[1, 2]", '{"cells": 5}', "[" * 100_000):
        notebook = nbformat.reads(feedback_notebook(report, submitted), as_version=4)
        nbformat.validate(notebook)
        assert len(notebook.cells) == 1 and "wrong_answer" in notebook.cells[0].source


def test_sources_and_outputs_are_capped():
    huge = {
        "cell_type": "code",
        "metadata": {},
        "source": "x = 1\n" * MAX_SOURCE_CHARS,
        "outputs": [{"output_type": "stream", "name": "stdout", "text": "y" * 10**6}],
    }
    notebook = {**hostile_notebook(), "cells": [huge]}
    [_, cell] = feedback_of(notebook, ran=False)["cells"]
    assert len("".join(cell["source"])) <= MAX_SOURCE_CHARS + 1
    assert len("".join(cell["outputs"][0]["text"])) < 10**5


def test_a_cell_this_module_got_wrong_costs_the_cells_never_the_results(monkeypatch):
    import grader.feedback_notebook as module

    monkeypatch.setattr(module, "_student_cells", lambda notebook: [{"cell_type": "code", "id": "x", "source": 7}])
    notebook = nbformat.reads(feedback_notebook(graded_report(), json.dumps(hostile_notebook())), as_version=4)
    nbformat.validate(notebook)
    assert len(notebook.cells) == 1 and "could not be shown" in notebook.cells[0].source
