import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.source import (
    MAX_NOTEBOOK_CODE_CELLS,
    MAX_SUBMISSION_BYTES,
    SubmissionInputError,
    read_submission,
    source_from_text,
)


def test_reads_a_python_file(tmp_path):
    path = tmp_path / "solution.py"
    path.write_text("def f():\n    return 1\n")
    source = read_submission(path)
    assert source.text == "def f():\n    return 1\n"
    assert source.filename == "solution.py"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("solution.py", b"", "the submission is empty"),
        ("solution.py", b"   \n\n", "the submission is empty"),
        ("solution.py", b"\xff\xfe def f(): pass", "not UTF-8 text"),
        ("solution.py", b"\x7fELF\x00\x00\x01", "binary file"),
        ("solution.py", b"#" * (10 * 2**20), "is too large for a submission"),
        ("work.ipynb", b"{ nope", "not a Jupyter notebook \\(invalid JSON\\)"),
        ("work.ipynb", b"", "the notebook is empty"),
        (
            "work.ipynb",
            b'{"cells": "none", "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
            "not a readable notebook",
        ),
        ("work.ipynb", b'{"nbformat": 99}', "not a readable notebook"),
    ],
)
def test_bad_files_are_refused_with_a_clear_message(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SubmissionInputError, match=message):
        read_submission(path)


def test_missing_file(tmp_path):
    with pytest.raises(SubmissionInputError, match="no such file"):
        read_submission(tmp_path / "absent.py")


def test_directory_is_not_a_submission(tmp_path):
    with pytest.raises(SubmissionInputError, match="not a regular file"):
        read_submission(tmp_path)


def _notebook(tmp_path, *cells):
    notebook = new_notebook()
    notebook.cells = list(cells)
    path = tmp_path / "work.ipynb"
    nbformat.write(notebook, path)
    return path


def test_a_notebook_keeps_its_cells_and_its_code_without_test_cells_seeds_the_examples(tmp_path):
    tests = new_code_cell("def test_visible(submission):\n    assert False")
    tests.metadata["tags"] = ["tests"]
    path = _notebook(
        tmp_path, new_markdown_cell("# notes"), new_code_cell("import jax"), tests, new_code_cell("%timeit x = 1")
    )
    source = read_submission(path)
    assert source.is_notebook
    assert len(nbformat.reads(source.notebook, as_version=4).cells) == 4  # run as it is, tests skipped then
    assert "import jax" in source.text and "%timeit x = 1" in source.text  # magics are the student's code too
    assert "test_visible" not in source.text


def test_a_notebook_without_code_of_its_own_is_refused(tmp_path):
    tests = new_code_cell("def test_visible(submission):\n    assert False")
    tests.metadata["tags"] = ["tests"]
    path = _notebook(tmp_path, new_markdown_cell("# only notes"), tests)
    with pytest.raises(SubmissionInputError, match="the notebook has no code to grade"):
        read_submission(path)


def test_a_notebook_of_more_code_cells_than_can_be_told_back_is_refused(tmp_path):
    # Its cells' outputs would not fit in the sandbox's reply: say so before anything runs.
    many = _notebook(tmp_path, *(new_code_cell("x = 1") for _ in range(MAX_NOTEBOOK_CODE_CELLS + 1)))
    with pytest.raises(SubmissionInputError, match=f"has {MAX_NOTEBOOK_CODE_CELLS + 1} code cells; .* at most"):
        read_submission(many)
    assert read_submission(_notebook(tmp_path, *(new_code_cell("x = 1") for _ in range(MAX_NOTEBOOK_CODE_CELLS))))


def test_text_submissions_are_capped():
    with pytest.raises(SubmissionInputError, match="too large"):
        source_from_text("x" * (MAX_SUBMISSION_BYTES + 1))
    with pytest.raises(SubmissionInputError, match="empty"):
        source_from_text("  ")


def test_a_notebooks_grader_metadata_travels_with_its_source_and_nothing_else_of_its_metadata(tmp_path):
    notebook = new_notebook(cells=[new_code_cell("import jax")])
    notebook.metadata["grader"] = {"slug": "aot_compiled_sum", "student": "ada"}
    notebook.metadata["widgets"] = {"state": "anything"}
    path = tmp_path / "work.ipynb"
    nbformat.write(notebook, path)
    source = read_submission(path)
    assert source.metadata == {"grader": {"slug": "aot_compiled_sum", "student": "ada"}}
