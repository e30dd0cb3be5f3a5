// The roster page's uploads that are still being invited: their counts every two seconds, and
// the page again once one is done (to list its invitations). Without scripts: reload the page.
for (const item of document.querySelectorAll("li[data-running]")) {
  const bar = item.querySelector("progress");
  const text = item.querySelector(".upload-status");
  const poll = async () => {
    try {
      const response = await fetch(item.dataset.progressUrl, {headers: {Accept: "application/json"}});
      if (response.ok) {
        const {status, done, total} = await response.json();
        bar.value = done;
        bar.max = total;
        text.textContent = `${status}, ${done} of ${total} rows`;
        if (status === "done" || status === "failed") {
          window.location.reload();
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
