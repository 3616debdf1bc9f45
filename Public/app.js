// Tip Jar Dashboard: progressive enhancement. Every page works without this file; with it,
// fragments load in place (X-Fragment: 1), tip buttons are disabled while a purchase is open,
// and alerts open as modal dialogs.
(function () {
  "use strict";
  var tokenMeta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = tokenMeta ? tokenMeta.getAttribute("content") : "";

  function swap(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    var nodes = Array.prototype.slice.call(template.content.children);
    nodes.forEach(function (node) {
      if (!node.id) { return; }
      var current = document.getElementById(node.id);
      if (!current) { return; }
      // A live region must stay in the document for its new content to be announced: keep the
      // element and swap what is inside it.
      if (current.hasAttribute("aria-live")) {
        current.replaceChildren.apply(current, Array.prototype.slice.call(node.childNodes));
      } else {
        current.replaceWith(node);
      }
    });
    showAlert();
    enhance(document);
  }

  // An alert the server rendered open (fragment, or a page after a no-JavaScript redirect) becomes
  // a modal dialog.
  function showAlert() {
    var alert = document.getElementById("alert");
    if (alert && alert.hasAttribute("open") && typeof alert.showModal === "function" && !alert.dataset.shown) {
      alert.dataset.shown = "1";
      alert.removeAttribute("open");
      alert.showModal();
    }
  }

  function request(url, options) {
    options = options || {};
    options.headers = Object.assign({ "X-Fragment": "1" }, options.headers || {});
    options.credentials = "same-origin";
    return fetch(url, options).then(function (response) {
      return response.text().then(function (text) { return { ok: response.ok, status: response.status, text: text }; });
    });
  }

  function tipButtons() { return document.querySelectorAll(".tiles button.tile"); }

  function setPurchaseOpen(open) {
    tipButtons().forEach(function (button) { button.disabled = open; });
    var jar = document.getElementById("tipjar");
    if (jar) { jar.setAttribute("aria-busy", open ? "true" : "false"); }
  }

  function load(element) {
    var src = element.getAttribute("data-src");
    element.removeAttribute("data-src");
    request(src).then(function (result) {
      swap(result.text);
      // The page was rendered busy (loading); the offers are in, so the live region is settled and
      // the live poll (which skips busy tip jars) may run.
      if (element.id === "tipjar") { element.setAttribute("aria-busy", "false"); }
    });
  }

  function submit(event) {
    var form = event.target;
    if (!form.matches("form[data-fragment]")) { return; }
    event.preventDefault();
    var isPurchase = form.hasAttribute("data-purchase");
    var button = form.querySelector("button");
    if (isPurchase) {
      if (button.disabled) { return; }
      setPurchaseOpen(true);
    }
    var method = (form.getAttribute("method") || "get").toUpperCase();
    var promise;
    if (method === "GET") {
      promise = request(form.getAttribute("action"));
    } else {
      promise = request(form.getAttribute("action"), {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        headers: { "X-CSRF-Token": csrfToken }
      });
    }
    promise.then(function (result) { swap(result.text); })
      .catch(function () { swap('<div id="feedback" class="feedback"><p class="notice notice-pending" role="status">The dashboard could not be reached.</p></div>'); })
      .then(function () {
        if (isPurchase) {
          setPurchaseOpen(false);
          restoreFocus(button);
        }
      });
  }

  // Disabling the focused tile drops keyboard focus to <body>; give it back once the purchase is
  // over (or once its alert is closed), so a keyboard user stays where they were.
  function restoreFocus(button) {
    if (!button || !button.isConnected) { return; }
    var alert = document.getElementById("alert");
    if (alert && alert.open) {
      alert.addEventListener("close", function () { if (button.isConnected) { button.focus(); } }, { once: true });
    } else if (!document.activeElement || document.activeElement === document.body) {
      button.focus();
    }
  }

  function enhance(root) {
    root.querySelectorAll("[data-src]").forEach(load);
  }

  function poll() {
    var jar = document.getElementById("tipjar");
    var live = document.body.getAttribute("data-live");
    if (!jar || !live) { return; }
    window.setInterval(function () {
      if (document.hidden || jar.getAttribute("aria-busy") === "true") { return; }
      request(live).then(function (result) { if (result.ok) { swap(result.text); } });
    }, 3000);
  }

  document.addEventListener("submit", submit);
  document.addEventListener("DOMContentLoaded", function () { showAlert(); enhance(document); poll(); });
})();
