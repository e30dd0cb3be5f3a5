import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.source import MAX_SUBMISSION_BYTES, SubmissionInputError, read_submission, source_from_text


def test_reads_a_python_file(tmp_path):
    path = tmp_path / "solution.py"
    path.write_text("def f():\n    return 1\n")
    source = read_submission(path)
    assert source.text == "def f():\n    return 1\n"
    assert source.filename == "solution.py"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the submission is empty"),
        (b"   \n\n", "the submission is empty"),
        (b"\xff\xfe def f(): pass", "not UTF-8 text"),
        (b"\x7fELF\x00\x00\x01", "binary file"),
        (b"#" * (10 * 2**20), "is too large for a submission"),
    ],
)
def test_bad_files_are_refused_with_a_clear_message(tmp_path, content, message):
    path = tmp_path / "solution.py"
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


def test_notebook_code_cells_become_the_submission_without_test_cells(tmp_path):
    tests = new_code_cell("def test_visible(submission):\n    assert False")
    tests.metadata["tags"] = ["tests"]
    path = _notebook(tmp_path, new_markdown_cell("# notes"), new_code_cell("import jax"), tests, new_code_cell("x = 1"))
    text = read_submission(path).text
    assert "import jax" in text and "x = 1" in text
    assert "test_visible" not in text
    compile(text, "work.ipynb", "exec")


@pytest.mark.parametrize("line", ["%timeit f()", "!pip install jax", "%%time"])
def test_notebook_magics_are_refused_naming_the_cell(tmp_path, line):
    path = _notebook(tmp_path, new_code_cell("import jax"), new_code_cell(f"x = 1\n{line}"))
    with pytest.raises(SubmissionInputError, match=r"cell 1, line 2: IPython magics and shell escapes"):
        read_submission(path)


def test_invalid_notebook_json(tmp_path):
    path = tmp_path / "work.ipynb"
    path.write_text("{ nope")
    with pytest.raises(SubmissionInputError, match="not a Jupyter notebook"):
        read_submission(path)


def test_text_submissions_are_capped():
    with pytest.raises(SubmissionInputError, match="too large"):
        source_from_text("x" * (MAX_SUBMISSION_BYTES + 1))
    with pytest.raises(SubmissionInputError, match="empty"):
        source_from_text("  ")
