// A course page's background jobs still under way (a regrade, a roster's invitations): each is
// asked how far it has got every two seconds ({done, total, finished, text}) until it is done;
// then a job marked data-reload-when-done shows the page again (to list what it made). Without
// scripts the page shows the jobs as they were when it was loaded.
for (const item of document.querySelectorAll("li[data-running]")) {
  const bar = item.querySelector("progress");
  const status = item.querySelector(".job-status");
  const poll = async () => {
    try {
      const response = await fetch(item.dataset.progressUrl, {headers: {Accept: "application/json"}});
      if (response.ok) {
        const job = await response.json();
        bar.value = job.done;
        bar.max = job.total;
        status.textContent = job.text;
        if (job.finished) {
          if ("reloadWhenDone" in item.dataset) {
            window.location.reload();
          } else {
            item.removeAttribute("data-running");
          }
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
