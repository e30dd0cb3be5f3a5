// The gradebook's regrades that are still under way: their counts, every two seconds, until done.
// Without scripts the page shows the counts as they were when it was loaded.
for (const item of document.querySelectorAll("li[data-running]")) {
  const bar = item.querySelector("progress");
  const count = item.querySelector(".regrade-count");
  const poll = async () => {
    try {
      const response = await fetch(item.dataset.progressUrl, {headers: {Accept: "application/json"}});
      if (response.ok) {
        const {ended, total} = await response.json();
        bar.value = ended;
        bar.max = total;
        count.textContent = `${ended} of ${total}`;
        if (ended >= total) {
          item.removeAttribute("data-running");
          return;
        }
      }
    } catch {
      // The site is briefly unreachable: try again at the next tick.
    }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}
