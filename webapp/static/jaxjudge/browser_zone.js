// The zone the browser is in ("Europe/Paris"), into the sign-up form's hidden field: the new
// account's times are then shown in it. Without scripts the field stays empty (UTC).
for (const field of document.querySelectorAll("input[type=hidden][data-browser-time-zone]")) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) field.value = zone;
}
