// The problem page: Run and Submit without leaving the page, live results, drafts kept.
// Without this script the form still works: it posts and the result page reloads itself.
(function () {
  "use strict";
  const form = document.getElementById("workspace");
  if (!form) return;
  const code = form.elements.namedItem("code");
  const result = document.getElementById("result");
  const draftState = document.getElementById("draft-state");
  const csrf = form.elements.namedItem("csrfmiddlewaretoken").value;
  const POLL_MS = 250;
  const cancelButton = form.querySelector('[data-action="cancel"]');
  const elapsed = document.getElementById("elapsed");
  const timeLimit = Number(form.dataset.timeLimit) || 0;
  const gradeButtons = () => form.querySelectorAll('button[data-action="run"], button[data-action="submit"]');
  let busy = false;
  let cancelUrl = null;

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function points(value) {
    return value === null || value === undefined ? "" : String(Math.round(value * 100) / 100);
  }

  // The server renders the result, its insight and its output (escaped there, from the same
  // templates as the submission page); each goes to its tab of the console.
  const output = document.getElementById("output");
  const insight = document.getElementById("insight");
  const console_ = document.querySelector(".console");
  const work = form.closest(".pane.work");
  const solvedBanner = document.querySelector('[data-testid="solved-banner"]');
  function render(data) {
    result.innerHTML = data.html;
    if (output && data.output_html !== undefined) output.innerHTML = data.output_html;
    if (insight && data.insight_html) insight.innerHTML = data.insight_html;
    markErrorLines();
    // A Submit accepted just now: the banner (the editorial, the next problem), and what the
    // top of the page says after a reload said at once.
    if (solvedBanner && data.finished) {
      solvedBanner.hidden = !(data.kind === "submit" && data.verdict === "accepted");
      if (!solvedBanner.hidden) solvedBanner.scrollIntoView({ block: "nearest" });
    } else if (solvedBanner) {
      solvedBanner.hidden = true;
    }
    showFailing();
  }

  // A result with failures: the console takes the room it needs (see site.css).
  function showFailing() {
    if (work) work.classList.toggle("failing", Boolean(result.querySelector('[data-testid="failure"]')));
  }
  showFailing();

  // A grading just ended with failures: the verdict and the first failure are brought on the
  // screen (on a phone they are below the editor), unless they are already.
  function bringFailureIntoView() {
    const first = result.querySelector('[data-testid="failure"] > summary');
    if (!first) return;
    const box = first.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    result.querySelector(".verdict").scrollIntoView({ block: "start" });
  }

  // The lines of the code a result points at (its links with data-line, made by the server)
  // are marked in the editor, and following such a link puts the cursor there.
  function markErrorLines() {
    const lines = Array.from(result.querySelectorAll("a[data-line]"), (link) => Number(link.dataset.line));
    if (code.jaxjudgeEditor) code.jaxjudgeEditor.markErrorLines(lines);
  }

  function goToLine(number) {
    if (code.jaxjudgeEditor) {
      code.jaxjudgeEditor.goToLine(number);
      return;
    }
    // The plain textarea: select the line.
    const lines = code.value.split("\n");
    const index = Math.min(Math.max(1, number), lines.length) - 1;
    const start = lines.slice(0, index).reduce((total, line) => total + line.length + 1, 0);
    code.focus();
    code.setSelectionRange(start, start + lines[index].length);
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-line]");
    if (!link || !result.contains(link)) return;
    event.preventDefault();
    goToLine(Number(link.dataset.line));
  });
  // The result shown when the page opened is marked as soon as the editor is there.
  if (code.jaxjudgeEditor) markErrorLines();
  else code.addEventListener("editor-ready", markErrorLines);

  function showTab(name) {
    if (console_) console_.dispatchEvent(new CustomEvent("console-show", { detail: name }));
  }

  // The history table: a new row for a new submission, or the row of one that was still being
  // graded when the page opened brought up to date.
  function addToHistory(data, pageUrl) {
    const body = document.querySelector("#history tbody");
    if (body.rows.length === 1 && body.rows[0].cells.length === 1) body.deleteRow(0); // "None yet."
    const existing = Array.from(body.rows).find((row) => row.cells[0].textContent.trim() === String(data.id));
    const row = existing || body.insertRow(0);
    row.replaceChildren();
    const link = element("a", data.id);
    link.href = pageUrl;
    row.insertCell().append(link);
    const cell = (text, label, className) => {
      const td = element("td", text, className);
      td.dataset.label = label;
      return td;
    };
    // The time as the server wrote it, in the reader's zone with its label, as on every page.
    const when = cell("", "When");
    const time = element("time", data.created_at_text);
    time.dateTime = data.created_at;
    time.title = data.time_zone;
    when.append(time);
    row.append(cell(data.kind, "Kind"), when);
    row.append(cell(data.verdict_label || data.status, "Verdict", `verdict ${data.verdict || data.status}`));
    row.append(cell(data.score === null ? "" : `${points(data.score)}/${points(data.max_score)}`, "Score"));
  }

  // A test that has ended, while the others run: its outcome, what it checks, why it failed.
  function liveTest(test) {
    const item = element("li", null, `outcome-${test.outcome}`);
    item.dataset.testid = "live-test";
    const mark = test.outcome === "passed" ? "✓" : "✗";
    item.append(element("span", `${mark} ${test.property || test.name}`));
    item.append(element("span", ` (${test.hidden ? "hidden" : "visible"})`, "test-name"));
    if (test.outcome !== "passed") {
      if (test.failing_input) item.append(element("pre", test.failing_input, "failing-input"));
      if (test.message) item.append(element("pre", test.message, "message"));
    }
    return item;
  }

  // While grading, each poll asks only for what changed (the tests that ended since the last
  // one); the result, rendered by the server, comes once, when the grading is finished.
  async function poll(url) {
    let shown = 0;
    for (;;) {
      const response = await fetch(`${url}?since=${shown}`, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(`status check failed (${response.status})`);
      const data = await response.json();
      if (data.finished) {
        render(data);
        bringFailureIntoView();
        return data;
      }
      const list = result.querySelector(".live-tests");
      const verdict = result.querySelector(".verdict");
      if (list) list.append(...data.tests.map(liveTest));
      shown = data.tests_ended;
      if (verdict) {
        const ended = shown === 1 ? "1 test ended" : `${shown} tests ended`;
        verdict.textContent = `${data.status}… ${ended}`;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  // While a grading runs: a clock against the problem's time limit, and Cancel.
  function startWatching(url) {
    cancelUrl = url;
    const started = performance.now();
    const tick = () => {
      const seconds = (performance.now() - started) / 1000;
      elapsed.textContent = `${seconds.toFixed(1)} s` + (timeLimit ? ` of at most ${timeLimit} s` : "");
    };
    tick();
    const clock = setInterval(tick, 100);
    if (cancelButton && url) {
      cancelButton.hidden = false;
      cancelButton.disabled = false;
      cancelButton.textContent = "Cancel";
    }
    return () => {
      clearInterval(clock);
      elapsed.textContent = "";
      if (cancelButton) cancelButton.hidden = true;
      cancelUrl = null;
    };
  }

  if (cancelButton) {
    cancelButton.addEventListener("click", async () => {
      if (!cancelUrl) return;
      cancelButton.disabled = true;
      cancelButton.textContent = "Cancelling…";
      await fetch(cancelUrl, { method: "POST", headers: { Accept: "application/json", "X-CSRFToken": csrf } });
      // The poll sees the grading end as cancelled (or graded, if it was quicker).
    });
  }

  // One grading at a time: Run and Submit are off until it ends, and a failure is said.
  async function exclusively(work) {
    if (busy) return;
    busy = true;
    for (const b of gradeButtons()) b.disabled = true;
    try {
      await work();
    } catch (error) {
      result.replaceChildren(element("p", `Something went wrong: ${error.message}`, "notice"));
    } finally {
      busy = false;
      for (const b of gradeButtons()) b.disabled = false;
    }
  }

  function grade(button) {
    return exclusively(async () => {
      const response = await fetch(button.getAttribute("formaction"), {
        method: "POST",
        body: new FormData(form),
        headers: { Accept: "application/json", "X-CSRFToken": csrf },
      });
      const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
      if (!response.ok) {
        result.replaceChildren(element("p", data.error || `the server answered ${response.status}`, "notice"));
        return;
      }
      render(data);
      showTab("result");
      await follow(data.status_url, data.page_url, data.cancel_url);
    });
  }

  // Poll a grading to its end, its clock and Cancel shown meanwhile; screen readers wait for
  // the verdict rather than read out every test as it ends.
  async function follow(statusUrl, pageUrl, cancelUrl) {
    const stopWatching = startWatching(cancelUrl);
    result.setAttribute("aria-busy", "true");
    try {
      addToHistory(await poll(statusUrl), pageUrl);
    } finally {
      result.removeAttribute("aria-busy");
      stopWatching();
    }
  }

  // A grading still under way when the page opened (a reload mid-Submit) is followed as well.
  function resume() {
    const { statusUrl, pageUrl, cancelUrl } = result.dataset;
    if (statusUrl) exclusively(() => follow(statusUrl, pageUrl, cancelUrl));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    grade(event.submitter || form.querySelector('[data-action="run"]'));
  });
  // Ctrl/Cmd-Enter runs the visible tests, Ctrl/Cmd-Shift-Enter submits: in the editor (the
  // bundle sends these events) and in the plain textarea.
  const run = () => grade(form.querySelector('[data-action="run"]'));
  const submit = () => grade(form.querySelector('[data-action="submit"]'));
  code.addEventListener("editor-run", run);
  code.addEventListener("editor-submit", submit);
  code.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      (event.shiftKey ? submit : run)();
    }
  });
  // The buttons show these shortcuts only now that they work (see site.css).
  form.classList.add("has-shortcuts");
  resume();

  // Drafts: saved a second after the last keystroke.
  let timer = null;
  code.addEventListener("input", () => {
    clearTimeout(timer);
    draftState.textContent = "";
    timer = setTimeout(async () => {
      const body = new FormData();
      body.append("code", code.value);
      const response = await fetch(form.dataset.draftUrl, { method: "POST", body, headers: { "X-CSRFToken": csrf } });
      draftState.textContent = response.ok ? "Draft saved" : "Draft not saved";
    }, 1000);
  });
})();
