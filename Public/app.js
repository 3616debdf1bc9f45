// Tip Jar Dashboard: progressive enhancement. Every page works without this file; with it,
// fragments load in place (X-Fragment: 1), tip buttons are disabled while a purchase is open,
// and alerts and the purchase sheet open as modal dialogs.
(function () {
  "use strict";
  var tokenMeta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = tokenMeta ? tokenMeta.getAttribute("content") : "";

  // `fromPoll`: the live channel (or poll) leaves an element alone when nothing in it changed, so a table being
  // scrolled or read is not rebuilt every few seconds. What a person asked for is always swapped in,
  // so an unchanged answer (Retry failing again) is still announced.
  function swap(html, fromPoll) {
    var template = document.createElement("template");
    template.innerHTML = html;
    var nodes = Array.prototype.slice.call(template.content.children);
    nodes.forEach(function (node) {
      if (!node.id) { return; }
      var current = document.getElementById(node.id);
      if (!current) { return; }
      if (fromPoll && node.id === "feedback" && !noticeNoLongerHolds(current, node)) { return; }
      // A live region must stay in the document for its new content to be announced: keep the
      // element and swap what is inside it.
      if (current.hasAttribute("aria-live")) {
        current.replaceChildren.apply(current, Array.prototype.slice.call(node.childNodes));
      } else if (!fromPoll || current.outerHTML !== node.outerHTML) {
        replaceKeepingPlace(current, node);
      }
    });
    showAlert();
    enhance(document);
    fitTiles(document);
    followOtherTabs();
  }

  // A purchase (or its sheet) open in another tab, or through the API, disables this tab's tiles too: the live
  // channel's #purchase-state says whether one is open on the install. This tab's own purchase and sheet manage
  // the tiles themselves (setPurchaseOpen), so the state is applied only while this tab has neither.
  var ownPurchase = false;
  function followOtherTabs() {
    var state = document.getElementById("purchase-state");
    if (!state || ownPurchase || document.getElementById("purchase-sheet")) { return; }
    var open = state.getAttribute("data-open") === "true";
    tipButtons().forEach(function (button) { button.disabled = open; });
  }

  // The live channel's feedback fragment holds the notice that is true now. It replaces what the page
  // shows only where that is a pending notice that no longer holds (approved: the thank-you; declined:
  // nothing) or where a purchase elsewhere went pending; any other notice (a restore's result, an
  // alert) stays until the person's next action.
  function noticeNoLongerHolds(current, node) {
    var jar = document.getElementById("tipjar");
    if (jar && jar.getAttribute("aria-busy") === "true") { return false; }
    // An alert the person has not closed yet is theirs: a change pushed meanwhile never removes it.
    if (current.querySelector("dialog[open]")) { return false; }
    var was = current.querySelector(".notice-pending"), now = node.querySelector(".notice-pending");
    return (was || now) && current.innerHTML.trim() !== node.innerHTML.trim();
  }

  // Replacing an element must not drop the keyboard focus or the scroll position inside it (the
  // live poll replaces the ledger while someone scrolls its table): both move to the element with
  // the same ID in the new content.
  function replaceKeepingPlace(current, node) {
    var active = document.activeElement;
    var focusedID = active && active !== current && current.contains(active) ? active.id : (active === current ? current.id : "");
    var scrolled = Array.prototype.slice.call(current.querySelectorAll(".table-scroll[id]"))
      .map(function (element) { return { id: element.id, left: element.scrollLeft }; });
    current.replaceWith(node);
    scrolled.forEach(function (place) {
      var element = document.getElementById(place.id);
      if (element) { element.scrollLeft = place.left; }
    });
    if (focusedID) {
      var again = document.getElementById(focusedID);
      if (again) { again.focus({ preventScroll: true }); }
    }
  }

  // Tiles share one row while every name fits with its words whole (CSS keeps each tile at least
  // as wide as its longest word, so a row without room wraps); once a row wraps, all the tiles
  // stack, as the app's AnyLayout does at large text sizes.
  function fitTiles(root) {
    root.querySelectorAll("ul.tiles").forEach(function (list) {
      list.classList.remove("stacked");
      var tops = Array.prototype.map.call(list.children, function (item) { return item.offsetTop; });
      if (tops.some(function (top) { return top !== tops[0]; })) { list.classList.add("stacked"); }
    });
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

  // The purchase sheet the server rendered (after a tap, or on a page loaded while it is open) opens as a
  // modal dialog; while it is there the purchase is open, so every tip button stays disabled. Escape is
  // the sheet's Cancel.
  var sheetOpener = null;
  function showSheet() {
    var sheet = document.getElementById("purchase-sheet");
    if (!sheet) { return false; }
    setPurchaseOpen(true);
    if (sheet.hasAttribute("open") && typeof sheet.showModal === "function" && !sheet.dataset.shown) {
      sheet.dataset.shown = "1";
      sheet.removeAttribute("open");
      sheet.showModal();
      sheet.addEventListener("cancel", function (event) {
        event.preventDefault();
        var cancel = sheet.querySelector("#sheet-cancel");
        if (cancel && !cancel.disabled) { cancel.form.requestSubmit(cancel); }
      });
      var body = sheet.querySelector(".sheet-body");
      if (body) {
        body.addEventListener("scroll", function () { markMore(body); }, { passive: true });
        markMore(body);
      }
    }
    return true;
  }

  // The sheet's middle (product, price, Apple Account) scrolls when the text is too large for the screen: while more
  // of it is below, it is marked (data-more, a shadow over its bottom edge), and while it scrolls at all it takes the
  // keyboard focus, so the keys scroll it too (WCAG 2.2, 2.1.1 Keyboard).
  function markMore(body) {
    var scrolls = body.scrollHeight > body.clientHeight + 1;
    body.toggleAttribute("data-more", scrolls && body.scrollTop + body.clientHeight < body.scrollHeight - 1);
    if (scrolls) { body.setAttribute("tabindex", "0"); } else { body.removeAttribute("tabindex"); }
  }

  function submit(event) {
    var form = event.target;
    // Relaunch: the relaunched app loads its tips again, so from the press on they are busy and disabled until the
    // page it leads to has loaded them (the server answers at once with the skeleton).
    if (form.matches("form[data-relaunch]")) { setPurchaseOpen(true); return; }
    if (!form.matches("form[data-fragment]")) { return; }
    event.preventDefault();
    var isPurchase = form.hasAttribute("data-purchase");
    var isSheet = form.hasAttribute("data-sheet");
    var button = event.submitter || form.querySelector("button");
    if (isPurchase) {
      if (button.disabled) { return; }
      ownPurchase = true;
      setPurchaseOpen(true);
      sheetOpener = button;
    }
    if (isSheet) {
      if (button.disabled) { return; }
      form.closest("dialog").querySelectorAll("button").forEach(function (each) { each.disabled = true; });
    }
    var method = (form.getAttribute("method") || "get").toUpperCase();
    var promise;
    if (method === "GET") {
      // A GET form names its fragment in data-action; its action is the page a browser without JavaScript loads.
      promise = request(form.getAttribute("data-action") || form.getAttribute("action"));
    } else {
      promise = request(form.getAttribute("action"), {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        headers: { "X-CSRF-Token": csrfToken }
      });
    }
    promise.then(function (result) { swap(result.text); })
      .catch(function () { showUnreachable(); })
      .then(function () {
        if (isPurchase || isSheet) { ownPurchase = false; }
        // A tap that opened the sheet keeps the purchase open until Confirm or Cancel answers.
        if (isPurchase && showSheet()) { return; }
        if (isPurchase || isSheet) { setPurchaseOpen(false); }
        if (isSheet) {
          var sheet = document.getElementById("purchase-sheet");
          if (sheet) { sheet.remove(); }
        }
        // A purchase another tab opened meanwhile (a 409 said so) keeps this tab's tiles disabled.
        if (isPurchase || isSheet) { followOtherTabs(); }
        restoreFocus(isSheet ? sheetOpener : button);
      });
  }

  // The fetch itself failed: the screen says so in its own language.
  function showUnreachable() {
    var feedback = document.getElementById("feedback");
    var screen = feedback && feedback.closest("[data-unreachable]");
    if (!feedback || !screen) { return; }
    var notice = document.createElement("p");
    notice.className = "notice notice-pending";
    notice.setAttribute("role", "status");
    notice.textContent = screen.getAttribute("data-unreachable");
    feedback.replaceChildren(notice);
  }

  // A swap must never leave keyboard focus on <body>: disabling the focused tile drops it there,
  // and Retry's button is replaced with the fragment it loads. Focus goes back to the button that
  // was used if it is still on the page (the tapped tile, Restore), else to what replaced it: the
  // first tile after a successful Retry, the new Retry after a failed one. With an alert open, this
  // happens once it closes.
  function restoreFocus(button) {
    function target() {
      if (button && button.isConnected && !button.disabled) { return button; }
      return document.querySelector("#tipjar .tiles button.tile:not([disabled]), #tipjar-state .empty button");
    }
    var alert = document.getElementById("alert");
    function focusTarget() {
      var element = target(), active = document.activeElement;
      // When the alert closes, focus may still sit on its OK button until the browser notices the
      // dialog is hidden.
      var lost = !active || active === document.body || (alert && alert.contains(active) && !alert.open);
      if (element && lost) { element.focus(); }
    }
    if (alert && alert.open) {
      alert.addEventListener("close", focusTarget, { once: true });
    } else {
      focusTarget();
    }
  }

  function enhance(root) {
    root.querySelectorAll("[data-src]").forEach(load);
  }

  // One live channel per install page: server-sent events from /installs/{id}/events push the live
  // fragments after every change to the install. Without EventSource, or once the channel is closed for
  // good, the page polls /installs/{id}/live every 3 s instead.
  function live() {
    var jar = document.getElementById("tipjar");
    var url = document.body.getAttribute("data-live");
    if (!jar || !url) { return; }
    if (typeof window.EventSource !== "function") { poll(jar, url); return; }
    var source = new window.EventSource(url.replace(/\/live(\?|$)/, "/events$1"));
    source.addEventListener("live", function (event) { swap(event.data, true); });
    source.addEventListener("error", function () {
      if (source.readyState === window.EventSource.CLOSED) { poll(jar, url); }
    });
    window.addEventListener("pagehide", function () { source.close(); });
  }

  function poll(jar, url) {
    window.setInterval(function () {
      if (document.hidden || jar.getAttribute("aria-busy") === "true") { return; }
      request(url).then(function (result) { if (result.ok) { swap(result.text, true); } });
    }, 3000);
  }

  // /store: choosing "slow" with no latency fills in the default the server would set, so the
  // form shows what will happen.
  function slowDefault(event) {
    var radio = event.target;
    if (!radio.matches('input[name="catalog"][value="slow"]') || !radio.checked) { return; }
    var latency = radio.form && radio.form.querySelector("input[data-slow-default]");
    if (latency && (latency.value === "" || Number(latency.value) === 0)) { latency.value = latency.getAttribute("data-slow-default"); }
  }

  // /store: a link of the index (or a redirect's fragment) opens the group it names; without JavaScript it
  // scrolls to the group's summary, one tap away.
  function openGroup() {
    var target = location.hash.length > 1 && document.getElementById(location.hash.slice(1));
    var group = target && (target.closest("details.group") || target.querySelector("details.group"));
    if (group) { group.open = true; }
  }

  // /transactions/{id}: "Copy the JWS" (shown only with JavaScript; without it the text is selectable). The
  // Clipboard API needs a secure context, which 127.0.0.1 is; elsewhere the text is selected for Ctrl-C.
  function copyButtons() {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var source = document.getElementById(button.getAttribute("data-copy"));
        var status = button.parentNode.querySelector(".copy-status");
        if (!source) { return; }
        var say = function (text) { if (status) { status.textContent = text; } };
        var select = function () {
          var range = document.createRange();
          range.selectNodeContents(source);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          say("Selected: press Ctrl-C (⌘C) to copy.");
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(source.textContent.trim()).then(function () { say("Copied."); }, select);
        } else {
          select();
        }
      });
    });
  }

  // The ledger's "Request a refund" opens the app's refund sheet, Transaction.beginRefundRequest(in:), as a modal
  // dialog over the screen, in the screen's text size (it is placed inside the screen, whose size class it takes);
  // Submit and Cancel post its form as without JavaScript, and Escape is its Cancel. Without JavaScript, or when the
  // fetch fails, the link opens the sheet as a page.
  function openRefundSheet(event) {
    var link = event.target.closest && event.target.closest('#ledger a[href*="/refund-sheet"]');
    var screen = document.querySelector("section.phone");
    if (!link || !screen || typeof HTMLDialogElement !== "function" || event.defaultPrevented) { return; }
    event.preventDefault();
    var size = document.querySelector('section.phone input[name="textSize"]');
    var url = link.getAttribute("href").split("?")[0] + (size ? "?textSize=" + encodeURIComponent(size.value) : "");
    request(url).then(function (result) {
      if (!result.ok) { window.location.href = url; return; }
      var old = document.getElementById("refund-sheet");
      if (old) { old.remove(); }
      var template = document.createElement("template");
      template.innerHTML = result.text;
      var sheet = template.content.querySelector("dialog");
      if (!sheet) { window.location.href = url; return; }
      screen.appendChild(sheet);
      sheet.addEventListener("cancel", function (cancelEvent) {
        cancelEvent.preventDefault();
        var cancel = sheet.querySelector("#refund-cancel");
        if (cancel) { cancel.form.requestSubmit(cancel); }
      });
      sheet.addEventListener("close", function () { sheet.remove(); link.focus(); });
      sheet.showModal();
      var body = sheet.querySelector(".sheet-body");
      if (body) {
        body.addEventListener("scroll", function () { markMore(body); }, { passive: true });
        markMore(body);
      }
    }, function () { window.location.href = url; });
  }

  var resizeFrame = 0;
  window.addEventListener("resize", function () {
    window.cancelAnimationFrame(resizeFrame);
    resizeFrame = window.requestAnimationFrame(function () {
      fitTiles(document);
      document.querySelectorAll("dialog.sheet[open] .sheet-body").forEach(markMore);
    });
  });
  document.addEventListener("submit", submit);
  document.addEventListener("click", openRefundSheet);
  document.addEventListener("change", slowDefault);
  window.addEventListener("hashchange", openGroup);
  document.addEventListener("DOMContentLoaded", function () { showAlert(); showSheet(); enhance(document); fitTiles(document); live(); openGroup(); copyButtons(); });
})();
