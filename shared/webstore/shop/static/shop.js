/* The shop's package modal (docs/shop.md, "Without JavaScript, and with it").
   A package card's "View" link (`a[data-package-modal]`) opens the package in place: the
   package page is fetched, its `#package-detail` shown in a <dialog>. Without this script (or
   when the fetch fails) the link is the package page itself. Its form is the page's own form
   (Post/Redirect/Get). No inline script, no eval: a file under the shop's policy. */
(function () {
  "use strict";
  var opener = null;

  function modal() {
    var dialog = document.getElementById("package-modal");
    if (!dialog) { // an owner's layout.html without the dialog: make one (English label)
      dialog = document.createElement("dialog");
      dialog.id = "package-modal";
      dialog.className = "modal";
      dialog.innerHTML = '<form method="dialog"><button type="submit" class="close">Close</button></form>' +
        '<div id="package-modal-body"></div>';
      document.body.appendChild(dialog);
    }
    if (!dialog.dataset.wired) {
      dialog.dataset.wired = "1";
      dialog.addEventListener("close", function () {
        document.getElementById("package-modal-body").replaceChildren();
        if (opener) { opener.focus(); opener = null; }
      });
      dialog.addEventListener("click", function (event) { // a click on the backdrop closes it
        if (event.target === dialog) { dialog.close(); }
      });
    }
    return dialog;
  }

  function show(link, html) {
    var detail = new DOMParser().parseFromString(html, "text/html").getElementById("package-detail");
    if (!detail) { window.location.assign(link.href); return; }
    var dialog = modal();
    var body = document.getElementById("package-modal-body");
    body.replaceChildren(document.importNode(detail, true));
    var heading = body.querySelector("h1, h2");
    if (heading) {
      heading.id = heading.id || "package-modal-title";
      heading.tabIndex = -1;
      dialog.setAttribute("aria-labelledby", heading.id);
    }
    opener = link;
    dialog.showModal();
    if (heading) { heading.focus(); }
  }

  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a[data-package-modal]") : null;
    if (!link || event.defaultPrevented || event.button !== 0 ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey ||
        typeof HTMLDialogElement !== "function") {
      return;
    }
    event.preventDefault();
    window.fetch(link.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.text();
      })
      .then(function (html) { show(link, html); })
      .catch(function () { window.location.assign(link.href); });
  });
})();
