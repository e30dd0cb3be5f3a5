// The problem page's layout: a movable split between statement and work, the editor above a
// console of tabs with a movable split between them, and hints shown one at a time. Without this
// script the panes still sit side by side, the console's panels follow each other and every
// hint can be opened.
(function () {
  "use strict";
  const workspace = document.querySelector(".workspace");
  if (!workspace) return;

  // A split: drag it, or focus it and use the arrow keys; the size it gives is remembered for
  // the next page. ``size(pixels)`` applies a size and returns it as applied; ``position(event)``
  // is the size a pointer at that place asks for; ``current()`` the size now; ``keys`` the arrow
  // keys that shrink and grow it.
  function movable(divider, storageKey, { size, position, current, keys }) {
    const saved = Number(localStorage.getItem(storageKey));
    if (saved) size(saved);
    divider.hidden = false;
    const keep = (pixels) => localStorage.setItem(storageKey, String(size(pixels)));
    divider.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      divider.setPointerCapture(event.pointerId);
      const move = (e) => keep(position(e));
      divider.addEventListener("pointermove", move);
      divider.addEventListener("pointerup", () => divider.removeEventListener("pointermove", move), { once: true });
    });
    divider.addEventListener("keydown", (event) => {
      const step = { [keys[0]]: -40, [keys[1]]: 40 }[event.key];
      if (step === undefined) return;
      event.preventDefault();
      keep(current() + step);
    });
  }

  // Between statement and work; its value is the statement's share of the width.
  const splitter = workspace.querySelector(".splitter");
  movable(splitter, "jaxjudge.statementWidth", {
    size(pixels) {
      const total = workspace.getBoundingClientRect().width;
      const width = Math.max(240, Math.min(total - 320, pixels));
      workspace.style.setProperty("--statement-width", `${width}px`);
      splitter.setAttribute("aria-valuenow", String(Math.round((100 * width) / total)));
      return width;
    },
    position: (event) => event.clientX - workspace.getBoundingClientRect().left,
    current: () => workspace.querySelector(".statement").getBoundingClientRect().width,
    keys: ["ArrowLeft", "ArrowRight"],
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

    // Between editor and console; its value is the editor's share of the height.
    const divider = work.querySelector(".console-splitter");
    movable(divider, "jaxjudge.consoleHeight", {
      size(pixels) {
        const total = work.getBoundingClientRect().height;
        const height = Math.max(120, Math.min(total - 200, pixels));
        work.style.setProperty("--console-height", `${height}px`);
        divider.setAttribute("aria-valuenow", String(Math.round((100 * (total - height)) / total)));
        return height;
      },
      position: (event) => work.getBoundingClientRect().bottom - event.clientY,
      current: () => consoleBox.getBoundingClientRect().height,
      keys: ["ArrowDown", "ArrowUp"],
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
