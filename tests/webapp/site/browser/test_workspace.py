"""The problem workspace in a real browser: a new student's first failure and fix, the layout on
a wide screen and a phone, hints and the movable split, and the line an error points at."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from grader.problem import load_problem
from tests.webapp.support.browser_steps import (
    BROWSER_TESTS,
    RAISES_ON_LINE_5,
    SOLUTIONS,
    expect_verdict,
    sign_up,
    write_code,
)

pytestmark = BROWSER_TESTS


def test_a_new_student_fails_reads_why_opens_the_insight_fixes_and_compares(sized_page: Page, site: str) -> None:
    page = sized_page
    username = sign_up(page, site, "newstudent")
    page.get_by_role("link", name=re.compile("Ahead-of-time compilation")).click()
    expect(page.get_by_test_id("code-editor")).to_be_visible()  # CodeMirror, not the bare textarea
    expect(page.get_by_test_id("code-editor")).to_contain_text("def aot_compiled_sum(x):")

    # Run (Ctrl-Enter in the editor): the visible tests only.
    write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
    page.get_by_test_id("code-editor").locator(".cm-content").press("Control+Enter")
    expect_verdict(page, "Wrong answer")
    expect(page.get_by_test_id("verdict")).to_have_attribute("data-verdict", "wrong_answer")  # for scripts
    tests = page.get_by_test_id("result")
    expect(tests).to_contain_text("visible")
    expect(tests).not_to_contain_text("hidden")
    # Why, in a JAX learner's words: the property, the input as JAX code, expected vs got.
    expect(tests).to_contain_text("Sums a small float vector.")
    expect(page.get_by_test_id("failing-input").first).to_contain_text(
        "x = jnp.array([0., 1., 2., 3., 4.], dtype=jnp.float32)"
    )
    expect(tests).to_contain_text("but 10.0 was expected")
    # What JAX did, in the console's next tabs (reached with the arrow keys, as in any tab list):
    # one trace, lowering and compile per call, and the StableHLO it compiled.
    page.get_by_role("tab", name="Result").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Output")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("panel-result")).to_be_hidden()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="JAX insight")).to_be_focused()
    insight = page.get_by_test_id("insight")
    expect(page.get_by_test_id("insight-headline")).to_contain_text(
        "in the visible tests' 3 calls, JAX traced your code"
    )
    expect(page.get_by_test_id("insight-legend")).to_contain_text("JAX ran your Python to record its operations")
    calls = page.get_by_test_id("insight-calls")
    expect(calls).to_contain_text("float32[5]")
    # Within the console: six plain columns on a wide screen, one card per call on a phone.
    table, console = calls.bounding_box(), page.get_by_test_id("insight").bounding_box()
    assert table and console and table["x"] + table["width"] <= console["x"] + console["width"] + 1, (table, console)
    header = calls.locator("thead")
    if page.viewport_size and page.viewport_size["width"] < 640:
        expect(header).to_be_hidden()
        expect(calls.locator("td[data-label='Traced']").first).to_be_visible()
    else:
        expect(header).to_have_text(re.compile(r"Call\s*Inputs\s*Traced\s*Compiled\s*Time compiling\s*Time running"))
    insight.get_by_text("StableHLO").first.click()
    expect(insight.locator("pre.stablehlo").first).to_contain_text("stablehlo.reduce")

    # Submit a wrong solution (Ctrl-Shift-Enter): hidden tests too, told without their code. The
    # console turns back to the result by itself.
    page.get_by_test_id("code-editor").locator(".cm-content").press("Control+Shift+Enter")
    expect_verdict(page, "Wrong answer")
    expect(page.get_by_test_id("panel-result")).to_be_visible()
    expect(tests).to_contain_text("hidden")
    expect(page.get_by_test_id("failure").first).to_be_visible()
    for internal in ("Failing test case", "Falsifying", "submission=", "settings.verbosity", "assert_same_array"):
        expect(tests).not_to_contain_text(internal)

    # Then the right one, and the reference's executable beside the student's.
    write_code(page, load_problem("aot_compiled_sum").reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "Accepted (100/100)")
    expect(page.get_by_test_id("failure")).to_have_count(0)
    # The reward: solved, the editorial one click away, and the problem after this one.
    banner = page.get_by_test_id("solved-banner")
    expect(banner).to_contain_text("Solved: Ahead-of-time compilation")
    expect(banner.get_by_role("link", name="Read the editorial")).to_be_visible()
    expect(page.get_by_test_id("banner-next")).to_contain_text("Next")
    expect(page.get_by_test_id("artifacts-yours")).to_contain_text("FLOPs")
    expect(page.get_by_test_id("artifacts-reference")).to_contain_text("FLOPs")
    page.get_by_role("tab", name="Submissions").click()
    expect(page.locator("#history tbody tr")).to_have_count(3)
    expect(page.locator("#history tbody tr").first).to_contain_text("Accepted")

    # The draft was kept: a reload shows the last code, not the starter.
    page.reload()
    expect(page.get_by_test_id("code-editor")).to_contain_text(".lower(x).compile()")

    page.get_by_role("link", name="Solution").click()
    expect(page.get_by_test_id("solution")).to_contain_text("jax.jit(jnp.sum).lower(x).compile()")
    page.get_by_role("link", name=username).click()
    expect(page.locator('td[data-slug="aot_compiled_sum"]')).to_have_text("solved")
    page.goto(f"{site}/")
    section = page.locator('[data-section="Lowering and compiling"]')
    expect(section.get_by_test_id("section-progress")).to_contain_text("1/")


def test_the_workspace_is_side_by_side_on_a_wide_screen_and_stacked_on_a_phone(browser: Browser, site: str) -> None:
    for width, height, side_by_side in ((1400, 900, True), (390, 844, False)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        sign_up(page, site, f"layout{width}")
        page.goto(f"{site}/problems/aot_compiled_sum/")
        statement = page.locator("section.statement").bounding_box()
        work = page.locator("section.work").bounding_box()
        assert statement and work
        if side_by_side:
            assert work["x"] >= statement["x"] + statement["width"] - 1, (statement, work)
            # The editor and the buttons are on the first screen.
            run = page.get_by_role("button", name="Run visible tests").bounding_box()
            assert run and run["y"] + run["height"] <= height
            expect(page.locator(".splitter")).to_be_visible()
        else:
            assert work["y"] >= statement["y"] + statement["height"] - 1, (statement, work)
            # Nothing runs off the side of a phone: no page scrolls sideways (wide tables scroll
            # in their own box).
            for path in ("/", "/problems/aot_compiled_sum/"):
                page.goto(f"{site}{path}")
                assert page.evaluate("document.documentElement.scrollWidth") <= width, path
            expect(page.locator(".splitter")).to_be_hidden()
            # Why a test failed is on the screen, not off to the right of a wide table.
            write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
            page.get_by_role("button", name="Run visible tests").click()
            expect_verdict(page, "Wrong answer")
            for why in (page.get_by_test_id("failing-input").first, page.get_by_test_id("failure-message").first):
                box = why.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, box
        context.close()


def test_hints_are_revealed_one_at_a_time_and_the_split_moves(page: Page, site: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{site}/problems/aot_compiled_sum/")
    hints = page.locator("details.hint")
    expect(hints).to_have_count(3)
    expect(hints.nth(0)).to_be_visible()
    expect(hints.nth(1)).to_be_hidden()
    hints.nth(0).locator("summary").click()
    expect(hints.nth(1)).to_be_visible()
    expect(hints.nth(2)).to_be_hidden()

    before = page.locator("section.statement").bounding_box()
    splitter = page.locator(".splitter")
    splitter.focus()
    for _ in range(3):
        splitter.press("ArrowRight")
    after = page.locator("section.statement").bounding_box()
    assert before and after and after["width"] >= before["width"] + 100
    # The split is remembered: the next page opens with it where it was left.
    page.reload()
    remembered = page.locator("section.statement").bounding_box()
    assert remembered and abs(remembered["width"] - after["width"]) <= 2


def test_the_split_between_editor_and_console_moves_from_the_keyboard_and_is_remembered(page: Page, site: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_up(page, site, "resizer")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    console = page.get_by_test_id("console")
    before = console.bounding_box()
    divider = page.get_by_role("separator", name="Resize the console")
    divider.focus()
    for _ in range(2):
        divider.press("ArrowUp")
    after = console.bounding_box()
    assert before and after and after["height"] >= before["height"] + 60, (before, after)
    value = int(divider.get_attribute("aria-valuenow") or 0)
    assert 0 < value < 100
    page.reload()
    remembered = page.get_by_test_id("console").bounding_box()
    assert remembered and abs(remembered["height"] - after["height"]) <= 2


def test_the_line_an_error_points_at_is_marked_in_the_editor_and_a_click_goes_there(
    sized_page: Page, site: str
) -> None:
    page = sized_page
    sign_up(page, site, "linemarks")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    write_code(page, RAISES_ON_LINE_5)
    page.get_by_role("button", name="Run visible tests").click()
    expect_verdict(page, "Runtime error")
    link = page.get_by_test_id("panel-result").locator("a[data-line='5']").first
    expect(link).to_contain_text('File "solution.py", line 5')
    viewport = page.viewport_size
    assert viewport and page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]  # nothing sideways
    editor = page.get_by_test_id("code-editor")
    expect(editor.locator(".cm-error-line")).to_have_count(1)
    expect(editor.locator(".cm-error-line")).to_contain_text("undefined_name")
    expect(editor.locator(".cm-error-gutter")).to_have_text("5")
    # The cursor is elsewhere; following the link puts it on that line, in the editor.
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    expect(editor.locator(".cm-activeLine")).to_have_text("import jax")
    link.click()
    expect(editor.locator(".cm-activeLine")).to_contain_text("undefined_name")
    expect(editor.locator(".cm-content")).to_be_focused()

    # A syntax error marks its own line, and the marks of the last result go.
    write_code(page, "def aot_compiled_sum(x):\n    return x +\n")
    page.get_by_role("button", name="Run visible tests").click()
    expect_verdict(page, "Syntax error")
    expect(editor.locator(".cm-error-gutter")).to_have_text("2")
    expect(editor.locator(".cm-error-line")).to_have_text("    return x +")
    # After a reload the latest result is shown, and its line marked, as soon as the editor is there.
    page.reload()
    expect(page.get_by_test_id("code-editor").locator(".cm-error-gutter")).to_have_text("2")


def test_a_failure_is_read_first_whole_and_in_view_and_passing_tests_are_folded(sized_page: Page, site: str) -> None:
    """After a Submit that fails some tests and passes others: the verdict, then the failures
    (the first open, its message wrapped whole, on the screen), then the passes folded; on a
    wide screen the editor stays in view beside a console grown for the failure."""
    page = sized_page
    width, height = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    sign_up(page, site, f"reader{width}")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    # Right for vectors, raises on 0-d arrays: some tests pass, some fail.
    write_code(page, (SOLUTIONS / "wrong_sums_first_axis.py").read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "Runtime error")
    expect(page.get_by_test_id("verdict")).to_contain_text(re.compile(r"\d+ of \d+ tests failed"))
    failures, passes = page.get_by_test_id("failure"), page.get_by_test_id("passes")
    expect(failures.first).to_have_attribute("open", "")
    expect(passes).not_to_have_attribute("open", "")  # folded
    expect(page.get_by_test_id("passed-test").first).to_be_hidden()
    # The failures come before the passes, and only the first is open.
    order = page.evaluate(
        """() => { const f = document.querySelector('[data-testid="failure"]');
                   const p = document.querySelector('[data-testid="passes"]');
                   return f.compareDocumentPosition(p) & Node.DOCUMENT_POSITION_FOLLOWING; }"""
    )
    assert order, "the passing tests come before the failures"
    if failures.count() > 1:
        expect(failures.nth(1)).not_to_have_attribute("open", "")
    # Its whole message, wrapped: nothing clipped or hidden to the right.
    message = failures.first.get_by_test_id("failure-message")
    expect(message).to_be_visible()
    clipped = message.evaluate("m => m.scrollWidth > m.clientWidth + 1")
    assert not clipped, message.inner_text()
    # The verdict and the first failure are on the screen, without scrolling to find them.
    for shown in (page.get_by_test_id("verdict"), failures.first.locator("summary")):
        box = shown.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    if width >= 1000:
        # The editor stays in view above the console, which took more of the height.
        editor = page.get_by_test_id("code-editor").bounding_box()
        console = page.get_by_test_id("console").bounding_box()
        assert editor and console and editor["y"] >= 0 and editor["height"] >= 100, editor
        assert console["height"] > editor["height"], (console, editor)
    # Opening the passes shows each of them.
    passes.locator("summary").click()
    expect(page.get_by_test_id("passed-test").first).to_be_visible()


def test_a_phone_jumps_to_the_editor_and_shows_no_keyboard_hints(browser: Browser, site: str) -> None:
    """On a touch phone the statement comes first, so a link jumps past it to the editor, and the
    buttons name no key to press; a desktop shows the shortcuts and needs no jump."""
    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = phone.new_page()
    sign_up(page, site, "thumbs")
    page.goto(f"{site}/problems/stable_softplus/")
    expect(page.get_by_test_id("code-editor")).to_be_visible()
    editor = page.get_by_test_id("code-editor").bounding_box()
    assert editor and editor["y"] > 844, "the editor is on the first screen: no jump needed to test it"
    # No shortcut shown, nor the "+" between its keys.
    expect(page.locator(".actions .shortcut").first).to_be_hidden()
    expect(page.get_by_role("button", name="Submit")).to_have_text("Submit", use_inner_text=True)
    page.get_by_test_id("jump-to-editor").click()
    page.wait_for_function("() => document.getElementById('your-work').getBoundingClientRect().top < 200")
    editor = page.get_by_test_id("code-editor").bounding_box()
    assert editor and 0 <= editor["y"] < 844, editor
    phone.close()
    desktop = browser.new_context(viewport={"width": 1400, "height": 900})
    page = desktop.new_page()
    sign_up(page, site, "keyboard")
    page.goto(f"{site}/problems/stable_softplus/")
    expect(page.get_by_test_id("code-editor")).to_be_visible()
    expect(page.locator(".actions kbd").first).to_be_visible()
    expect(page.get_by_test_id("jump-to-editor")).to_be_hidden()
    desktop.close()
