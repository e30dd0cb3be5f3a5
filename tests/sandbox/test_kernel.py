"""What a notebook's kernel sends back is hostile: the outputs kept are plain, printable, capped."""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from sandbox.kernel import MAX_CELL_OUTPUT_CHARS, clean_outputs


def _cleaned(*outputs):
    cell = new_code_cell("x", execution_count=3)
    cell.outputs = list(outputs)
    notebook = new_notebook(cells=[cell])
    clean_outputs(notebook)
    nbformat.validate(notebook)
    return notebook.cells[0].outputs


def test_html_and_javascript_outputs_are_dropped_text_and_png_kept():
    outputs = _cleaned(
        new_output(
            "display_data",
            data={"text/html": "<script>steal()</script>", "application/javascript": "steal()", "text/plain": "fine"},
        ),
        new_output("display_data", data={"image/png": "iVBORw0KGgo=\n"}),
        new_output("execute_result", data={"text/html": "<b>only html</b>"}, execution_count=3),
    )
    assert [out.data for out in outputs] == [{"text/plain": "fine"}, {"image/png": "iVBORw0KGgo=\n"}]


def test_colours_and_control_characters_are_removed_or_escaped():
    (stream,) = _cleaned(new_output("stream", name="stdout", text="\x1b[31mred\x1b[0m and \x07bell\n"))
    assert stream.text == "red and \\x07bell\n"


def test_a_flood_of_output_is_capped_per_cell():
    outputs = _cleaned(*[new_output("stream", name="stdout", text="y" * 5000) for _ in range(20)])
    assert sum(len(out.text) for out in outputs) <= MAX_CELL_OUTPUT_CHARS + 10


def test_an_error_keeps_its_name_and_a_printable_traceback():
    (error,) = _cleaned(
        new_output("error", ename="ValueError", evalue="bad \x1b[1mvalue", traceback=["\x1b[0;31mline 1\x1b[0m"])
    )
    assert (error.ename, error.evalue, error.traceback) == ("ValueError", "bad value", ["line 1"])


def test_a_forged_execution_count_is_dropped():
    cell = new_code_cell("x")
    cell.execution_count = 10**9
    notebook = new_notebook(cells=[cell])
    clean_outputs(notebook)
    assert notebook.cells[0].execution_count is None
