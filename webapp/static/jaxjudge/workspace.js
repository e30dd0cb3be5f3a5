// The problem page's layout: a movable split between statement and work, and hints shown one
// at a time. Without this script the panes still sit side by side and every hint can be opened.
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

  // Hints: the next one appears once the one before it has been opened.
  const hints = Array.from(workspace.querySelectorAll("details.hint"));
  hints.forEach((hint, index) => {
    if (index > 0) hint.hidden = true;
    hint.addEventListener("toggle", () => {
      if (hint.open && hints[index + 1]) hints[index + 1].hidden = false;
    });
  });
})();
