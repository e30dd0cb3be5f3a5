// The assignment form's problem picker: a search box and tag and difficulty filters over the
// catalog's rows, and the ticked problems listed in their order with buttons to move them up
// and down (which rewrite the position boxes the server reads). Without scripts the whole
// catalog shows and positions are typed; filtered rows stay in the form, ticked or not.
const picker = document.querySelector(".problem-picker");
if (picker) {
  const rows = [...picker.querySelectorAll("tr[data-problem]")];
  const filters = picker.querySelector(".picker-filters");
  const search = picker.querySelector("#picker-search");
  const tag = picker.querySelector("#picker-tag");
  const difficulty = picker.querySelector("#picker-difficulty");
  const onlyPicked = picker.querySelector("#picker-only-picked");
  const ordered = picker.querySelector(".picked");
  const list = picker.querySelector(".picked-order");
  const box = (row) => row.querySelector('input[name="problem"]');
  const position = (row) => row.querySelector('input[name^="position-"]');
  const title = (row) => row.querySelector("label").textContent;

  const filter = () => {
    const words = search.value.trim().toLowerCase();
    for (const row of rows) {
      const shown =
        (!words || row.dataset.search.includes(words)) &&
        (!tag.value || row.dataset.tags.split("|").includes(tag.value)) &&
        (!difficulty.value || row.dataset.difficulty === difficulty.value) &&
        (!onlyPicked.checked || box(row).checked);
      row.hidden = !shown;
    }
    for (const section of picker.querySelectorAll(".picker-section")) {
      section.hidden = !section.querySelector("tr[data-problem]:not([hidden])");
    }
  };

  // The ticked rows in the order the server will save them: by position, blanks last, then
  // in the catalog's order.
  const picked = () => {
    const at = (row) => (position(row).value === "" ? Infinity : Number(position(row).value));
    return rows
      .filter((row) => box(row).checked)
      .map((row, index) => ({row, index}))
      .sort((a, b) => at(a.row) - at(b.row) || a.index - b.index)
      .map(({row}) => row);
  };

  const button = (text, label, onClick, disabled) => {
    const element = document.createElement("button");
    element.type = "button";
    element.textContent = text;
    element.setAttribute("aria-label", label);
    element.disabled = disabled;
    element.addEventListener("click", onClick);
    return element;
  };

  const show = (order) => {
    order.forEach((row, index) => {
      position(row).value = index + 1;
    });
    for (const row of rows) {
      if (!box(row).checked) {
        position(row).value = "";
      }
    }
    list.replaceChildren(
      ...order.map((row, index) => {
        const item = document.createElement("li");
        const move = (by) => () => {
          const changed = [...order];
          [changed[index], changed[index + by]] = [changed[index + by], changed[index]];
          show(changed);
          // The focus stays with the problem moved, on the button that can move it further.
          const [up, down] = list.children[index + by].querySelectorAll("button");
          const same = by < 0 ? up : down;
          (same.disabled ? (by < 0 ? down : up) : same).focus();
        };
        item.append(
          `${title(row)} `,
          button("↑", `Move ${title(row)} up`, move(-1), index === 0),
          button("↓", `Move ${title(row)} down`, move(1), index === order.length - 1),
        );
        return item;
      }),
    );
    ordered.hidden = order.length === 0;
  };

  for (const row of rows) {
    box(row).addEventListener("change", () => {
      const order = picked().filter((other) => other !== row);
      if (box(row).checked) {
        order.push(row); // a problem ticked goes last; its buttons move it
      }
      show(order);
      filter();
    });
    position(row).addEventListener("change", () => {
      if (position(row).value !== "") {
        box(row).checked = true; // a position typed picks the problem
      }
      show(picked());
    });
  }
  for (const control of [search, tag, difficulty, onlyPicked]) {
    control.addEventListener("input", filter);
  }
  filters.hidden = false;
  show(picked());
}
