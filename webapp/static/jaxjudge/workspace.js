// The problem page's layout: a movable split between statement and work, the editor above a
// console of tabs with a movable split between them, and hints shown one at a time. Without this
// script the panes still sit side by side, the console's panels follow each other and every
// hint can be opened.
(function () {
  "use strict";
  const workspace = document.querySelector(".workspace");
  if (!workspace) return;

  // The split: drag it, or focus it and use the arrow keys. Remembered for the next page.
  const splitter = workspace.querySelector(".splitter");
  const KEY = "jaxjudge.statementWidth";
  function setWidth(pixels) {
    const total = workspace.getBoundingClientRect().width;
    const width = Math.max(240, Math.min(total - 320, pixels));
    workspace.style.setProperty("--statement-width", `${width}px`);
    splitter.setAttribute("aria-valuenow", String(Math.round((100 * width) / total)));  // the statement's share
    return width;
  }
  const saved = Number(localStorage.getItem(KEY));
  if (saved) setWidth(saved);
  splitter.hidden = false;
  splitter.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    splitter.setPointerCapture(event.pointerId);
    const left = workspace.getBoundingClientRect().left;
    const move = (e) => localStorage.setItem(KEY, String(setWidth(e.clientX - left)));
    splitter.addEventListener("pointermove", move);
    splitter.addEventListener("pointerup", () => splitter.removeEventListener("pointermove", move), { once: true });
  });
  splitter.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    const current = workspace.querySelector(".statement").getBoundingClientRect().width;
    localStorage.setItem(KEY, String(setWidth(current + (event.key === "ArrowLeft" ? -40 : 40))));
  });

  // The console under the editor: tabs (arrow keys move between them, as in any tab list), the
  // chosen one remembered; the split between editor and console movable like the other one.
  const work = workspace.querySelector(".pane.work");
  const consoleBox = workspace.querySelector(".console");
  if (work && consoleBox) {
    const tabs = Array.from(consoleBox.querySelectorAll('[role="tab"]'));
    const TAB_KEY = "jaxjudge.consoleTab";
    function show(name, focus) {
      const chosen = tabs.find((tab) => tab.dataset.tab === name) || tabs[0];
      for (const tab of tabs) {
        const selected = tab === chosen;
        tab.setAttribute("aria-selected", String(selected));
        tab.tabIndex = selected ? 0 : -1;
        document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
      }
      if (focus) chosen.focus();
      localStorage.setItem(TAB_KEY, chosen.dataset.tab);
    }
    consoleBox.querySelector('[role="tablist"]').hidden = false;
    work.classList.add("with-console");
    tabs.forEach((tab, index) => {
      tab.addEventListener("click", () => show(tab.dataset.tab, false));
      tab.addEventListener("keydown", (event) => {
        const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
        if (!(event.key in moves)) return;
        event.preventDefault();
        show(tabs[(moves[event.key] + tabs.length) % tabs.length].dataset.tab, true);
      });
    });
    // A result on the page opens on it; otherwise the tab last chosen, or the tests Run checks.
    const hasResult = consoleBox.querySelector("#result .verdict");
    show(hasResult ? "result" : localStorage.getItem(TAB_KEY) || "testcases", false);
    // problem.js asks for a tab (the result, when a grading starts); focus stays where it is.
    consoleBox.addEventListener("console-show", (event) => show(event.detail, false));

    const divider = work.querySelector(".console-splitter");
    const HEIGHT_KEY = "jaxjudge.consoleHeight";
    function setHeight(pixels) {
      const total = work.getBoundingClientRect().height;
      const height = Math.max(120, Math.min(total - 200, pixels));
      work.style.setProperty("--console-height", `${height}px`);
      divider.setAttribute("aria-valuenow", String(Math.round((100 * (total - height)) / total)));  // the editor's
      return height;
    }
    const savedHeight = Number(localStorage.getItem(HEIGHT_KEY));
    if (savedHeight) setHeight(savedHeight);
    divider.hidden = false;
    divider.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      divider.setPointerCapture(event.pointerId);
      const bottom = work.getBoundingClientRect().bottom;
      const move = (e) => localStorage.setItem(HEIGHT_KEY, String(setHeight(bottom - e.clientY)));
      divider.addEventListener("pointermove", move);
      divider.addEventListener("pointerup", () => divider.removeEventListener("pointermove", move), { once: true });
    });
    divider.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
      event.preventDefault();
      const current = consoleBox.getBoundingClientRect().height;
      localStorage.setItem(HEIGHT_KEY, String(setHeight(current + (event.key === "ArrowUp" ? 40 : -40))));
    });
  }

  // Hints: the next one appears once the one before it has been opened.
  const hints = Array.from(workspace.querySelectorAll("details.hint"));
  hints.forEach((hint, index) => {
    if (index > 0) hint.hidden = true;
    hint.addEventListener("toggle", () => {
      if (hint.open && hints[index + 1]) hints[index + 1].hidden = false;
    });
  });
})();
