// Times are sent in UTC; shown in the reader's own time zone where scripts run.
for (const element of document.querySelectorAll("time[data-local]")) {
  const when = new Date(element.getAttribute("datetime"));
  if (!Number.isNaN(when.getTime())) {
    element.textContent = when.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "short", timeZoneName: "short"});
  }
}
