"""What a notebook's kernel wrote is hostile: the outputs kept are plain, printable, capped."""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from sandbox.cell_outputs import MAX_CELL_OUTPUT_CHARS, MAX_NOTEBOOK_TEXT_CHARS, OutputBudget, clean_outputs


def _cleaned(*outputs):
    cell = new_code_cell("x", execution_count=3)
    cell.outputs = [nbformat.from_dict(output) for output in clean_outputs(list(outputs))]
    nbformat.validate(new_notebook(cells=[cell]))
    return cell.outputs


def test_html_and_javascript_outputs_are_dropped_text_and_png_kept():
    outputs = _cleaned(
        new_output(
            "display_data",
            data={"text/html": "<script>steal()</script>", "application/javascript": "steal()", "text/plain": "fine"},
        ),
        new_output("display_data", data={"image/png": "iVBORw0KGgo=\n", "image/svg+xml": "<svg onload=x()/>"}),
        new_output("execute_result", data={"text/html": "<b>only html</b>"}, execution_count=3),
        new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "x"}}),
    )
    assert [out.data for out in outputs] == [{"text/plain": "fine"}, {"image/png": "iVBORw0KGgo=\n"}]


def test_colours_and_control_characters_are_removed_or_escaped():
    (stream,) = _cleaned(new_output("stream", name="stdout", text="\x1b[31mred\x1b[0m and \x07bell\n"))
    assert stream.text == "red and \\x07bell\n"


def test_a_stream_that_names_itself_is_dropped():
    assert _cleaned(new_output("stream", name="<img src=x onerror=alert(1)>", text="hi")) == []


def test_a_flood_of_output_is_capped_per_cell_and_per_notebook():
    outputs = _cleaned(*[new_output("stream", name="stdout", text="y" * 5000) for _ in range(20)])
    assert sum(len(out.text) for out in outputs) <= MAX_CELL_OUTPUT_CHARS + 10
    budget = OutputBudget()
    chatty = [{"output_type": "stream", "name": "stdout", "text": "z" * 9000}]
    kept = [clean_outputs(chatty, budget) for _ in range(500)]
    assert sum(len(output["text"]) for cell in kept for output in cell) <= MAX_NOTEBOOK_TEXT_CHARS + 500


def test_an_error_keeps_its_name_and_a_printable_traceback():
    (error,) = _cleaned(
        new_output("error", ename="ValueError", evalue="bad \x1b[1mvalue", traceback=["\x1b[0;31mline 1\x1b[0m"])
    )
    assert (error.ename, error.evalue, error.traceback) == ("ValueError", "bad value", ["line 1"])


def test_fields_of_any_type_are_dropped_not_trusted():
    hostile = [
        5,
        "stream",
        {"output_type": "stream", "name": "stdout", "text": 7},
        {"output_type": "display_data", "data": {"text/plain": 5}, "transient": "x"},
        {"output_type": "execute_result", "data": [], "execution_count": 10**9},
        {"output_type": "error", "ename": None, "evalue": {}, "traceback": "not a list"},
    ]
    outputs = clean_outputs(hostile)
    assert outputs == [{"output_type": "error", "ename": "", "evalue": "", "traceback": [""]}]
    assert clean_outputs("not a list") == clean_outputs(None) == []
