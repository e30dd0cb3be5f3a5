"""The links from a result's messages to the lines of the student's code."""

from webapp.submissions.templatetags.code_lines import code_links

TRACEBACK = (
    "your code raised ValueError: no\n"
    'File "/usr/lib/python3/dist-packages/jax/_src/api.py", line 88, in jit\n'
    'File "solution.py", line 4, in positive_sum\n'
    "  if v > 0:\n"
    "The error occurred while tracing the function positive_sum at solution.py:1 for jit."
)


def test_a_traceback_links_its_frames_in_the_students_code_and_no_others():
    html = str(code_links(TRACEBACK))
    assert '<a class="code-line" href="#solution-code" data-line="4">File &quot;solution.py&quot;, line 4</a>' in html
    assert '<a class="code-line" href="#solution-code" data-line="1">solution.py:1</a>' in html
    assert html.count("<a ") == 2  # JAX's own frame is not the student's code
    assert "api.py&quot;, line 88" in html


def test_a_syntax_error_links_its_line():
    html = str(code_links("syntax error in solution.py, line 2: invalid syntax"))
    link = '<a class="code-line" href="#solution-code" data-line="2">solution.py, line 2</a>'
    assert html == f"syntax error in {link}: invalid syntax"


def test_what_the_submission_wrote_stays_text():
    # A message is the submission's to write: markup is escaped, a file whose name only ends like
    # the student's is not theirs, and no line number is taken beyond six digits or below one.
    message = (
        '<img src=x onerror=alert(1)> File "solution.py", line 3" onclick="x\n'
        "my_solution.py, line 5; tmp/solution.py:6; solution.py:1234567; solution.py, line 0"
    )
    html = str(code_links(message))
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'data-line="3">File &quot;solution.py&quot;, line 3</a>&quot; onclick=&quot;x' in html
    assert html.count("<a ") == 1
