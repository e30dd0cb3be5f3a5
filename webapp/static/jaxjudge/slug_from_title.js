// A new course's or assignment's slug follows its title as it is typed, as the server makes one
// from an empty slug (Django's slugify), until the slug is typed in by hand.
const title = document.querySelector("#id_title");
const slug = document.querySelector("#id_slug");
if (title && slug) {
  let typedByHand = slug.value !== "";
  const slugify = (text) =>
    text
      .normalize("NFKD")
      .replace(/[^\x00-\x7f]/g, "")
      .toLowerCase()
      .replace(/[^\w\s-]/g, "")
      .replace(/[-\s]+/g, "-")
      .replace(/^[-_]+|[-_]+$/g, "")
      .slice(0, 50);
  slug.addEventListener("input", () => {
    typedByHand = slug.value !== "";
  });
  title.addEventListener("input", () => {
    if (!typedByHand) {
      slug.value = slugify(title.value);
    }
  });
}
