/* The checkout launcher, with Tebex.js's checkout contract (docs/shop.md, "The checkout
   launcher"): a site built on Tebex.js works by changing the script's address.

     Tebex.checkout.init({ident: "<basket ident>", closeOnPaymentComplete: true, ...});
     Tebex.checkout.on("payment:complete", function (event) { ... });
     Tebex.checkout.launch();

   Our hosted checkout refuses to be framed (frame-ancestors 'none': nobody can overlay its
   pay button), so launch() dims the site and opens the checkout in its own window; a browser
   that blocks the window is sent to the checkout instead (a redirect). Completion is read from
   the storefront's basket (`complete`), as Tebex.js's events are: a hint for the page, never a
   proof of payment (use the webhooks). Events: open, close, payment:complete, payment:error (also under their
   legacy names payment_complete and payment_error).
   The shop serves it with its settings in place of WEBSTORE_LAUNCHER (webstore/shop/launcher.py). */
(function (config) {
  "use strict";
  var EVENTS = ["open", "close", "payment:complete", "payment:error"];
  // The names Tebex.js still accepts from before its rename (the official headless starter
  // listens for "payment_complete").
  var LEGACY = { payment_complete: "payment:complete", payment_error: "payment:error" };
  var POLL_MS = 1500;
  var options = null;
  var listeners = {};
  var state = null; // {popup, overlay, timer, done}

  function emit(name, detail) {
    (listeners[name] || []).slice().forEach(function (callback) {
      try { callback(detail); } catch (error) { setTimeout(function () { throw error; }); }
    });
  }

  function checkoutUrl(ident) {
    return config.storefront + "/checkout/" + encodeURIComponent(ident);
  }

  function basketUrl(ident) {
    return config.storefront + "/api/accounts/" + encodeURIComponent(config.token) +
      "/baskets/" + encodeURIComponent(ident);
  }

  function overlay() {
    var layer = document.createElement("div");
    layer.setAttribute("role", "dialog");
    layer.setAttribute("aria-modal", "true");
    layer.setAttribute("aria-label", "Checkout");
    layer.setAttribute("data-webstore-checkout", "");
    layer.style.cssText = "position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;" +
      "justify-content:center;background:rgba(0,0,0,.6);font:16px system-ui,sans-serif";
    var box = document.createElement("div");
    box.style.cssText = "background:#fff;color:#1b1d21;padding:1.5rem;border-radius:.5rem;max-width:22rem;text-align:center";
    var text = document.createElement("p");
    text.textContent = "The checkout is open in its own window.";
    var focus = document.createElement("button");
    focus.type = "button";
    focus.textContent = "Show the checkout";
    focus.addEventListener("click", function () { if (state && state.popup) { state.popup.focus(); } });
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "Close";
    cancel.style.marginLeft = ".5rem";
    cancel.addEventListener("click", function () { checkout.close(); });
    box.appendChild(text);
    box.appendChild(focus);
    box.appendChild(cancel);
    layer.appendChild(box);
    layer.addEventListener("click", function (event) {
      if (event.target === layer && options.closeOnClickOutside) { checkout.close(); }
    });
    document.addEventListener("keydown", onKey);
    document.body.appendChild(layer);
    focus.focus();
    return layer;
  }

  function onKey(event) {
    if (event.key === "Escape" && state && options.closeOnEsc) { checkout.close(); }
  }

  function poll() {
    if (!state || state.done) { return; }
    var ident = options.ident;
    window.fetch(basketUrl(ident), { headers: { Accept: "application/json" }, credentials: "omit" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        if (!state || state.done) { return; }
        if (body && body.data && body.data.complete) {
          state.done = true;
          emit("payment:complete", { type: "payment:complete", ident: ident });
          if (options.closeOnPaymentComplete) { checkout.close(); }
          return;
        }
        if (state.popup && state.popup.closed) { checkout.close(); return; }
        state.timer = setTimeout(poll, POLL_MS);
      })
      .catch(function () {
        if (state && !state.done) { state.timer = setTimeout(poll, POLL_MS); }
      });
  }

  var checkout = {
    init: function (given) {
      if (!given || typeof given.ident !== "string" || !given.ident) {
        throw new TypeError("Tebex.checkout.init: the option ident (the basket's ident) is required");
      }
      options = {
        ident: given.ident,
        locale: given.locale || "",
        theme: given.theme || "default",
        colors: given.colors || [],
        closeOnClickOutside: given.closeOnClickOutside === true,
        closeOnEsc: given.closeOnEsc === true,
        closeOnPaymentComplete: given.closeOnPaymentComplete === true,
        defaultPaymentMethod: given.defaultPaymentMethod || "",
        popupOnMobile: given.popupOnMobile === true,
      };
    },
    on: function (name, callback) {
      name = LEGACY[name] || name;
      if (EVENTS.indexOf(name) < 0) { throw new TypeError("Tebex.checkout.on: no event named " + name); }
      (listeners[name] = listeners[name] || []).push(callback);
      return function () { listeners[name] = listeners[name].filter(function (c) { return c !== callback; }); };
    },
    launch: function () {
      if (!options) { throw new Error("Tebex.checkout.launch: call Tebex.checkout.init first"); }
      if (state) { if (state.popup) { state.popup.focus(); } return; }
      var url = checkoutUrl(options.ident);
      var popup = window.open(url, "webstore-checkout", "popup,width=520,height=760");
      if (!popup) { window.location.assign(url); return; } // the window was blocked: a redirect
      state = { popup: popup, overlay: null, timer: null, done: false };
      state.overlay = overlay();
      emit("open", { type: "open", ident: options.ident });
      state.timer = setTimeout(poll, POLL_MS);
    },
    close: function () {
      if (!state) { return; }
      var was = state;
      state = null;
      clearTimeout(was.timer);
      document.removeEventListener("keydown", onKey);
      if (was.overlay && was.overlay.parentNode) { was.overlay.parentNode.removeChild(was.overlay); }
      if (was.popup && !was.popup.closed) { was.popup.close(); }
      emit("close", { type: "close", ident: options.ident });
    },
    isOpen: function () { return state !== null; },
  };

  window.Tebex = window.Tebex || {};
  window.Tebex.checkout = checkout;
})(WEBSTORE_LAUNCHER);
