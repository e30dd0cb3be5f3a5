// Times are sent in UTC; shown in the reader's own time zone where scripts run.
// (dateStyle and timeStyle cannot be mixed with timeZoneName: each part is named instead.)
const LOCAL_TIME = {year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"};
for (const element of document.querySelectorAll("time[data-local]")) {
  const when = new Date(element.getAttribute("datetime"));
  if (!Number.isNaN(when.getTime())) {
    element.textContent = when.toLocaleString(undefined, LOCAL_TIME);
  }
}
