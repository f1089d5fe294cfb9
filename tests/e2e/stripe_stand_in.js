// A stand-in for Stripe.js v3 (tests/e2e/test_stripe_checkout.py): records how the checkout
// page drives it, mounts a visible placeholder, and after confirmPayment sends the browser to
// the return URL as Stripe does after a successful confirmation.
window.__stripe = { calls: [] };
window.Stripe = function (publishableKey) {
  window.__stripe.calls.push(["Stripe", publishableKey]);
  return {
    elements: function (options) {
      window.__stripe.calls.push(["elements", options.clientSecret]);
      return {
        clientSecret: options.clientSecret,
        create: function (type) {
          window.__stripe.calls.push(["create", type]);
          return {
            mount: function (selector) {
              window.__stripe.calls.push(["mount", selector]);
              var element = document.querySelector(selector);
              element.setAttribute("data-mounted", type);
              element.textContent = "Card details (Stripe.js stand-in)";
            },
          };
        },
      };
    },
    confirmPayment: function (args) {
      var url = args.confirmParams.return_url;
      window.__stripe.calls.push(["confirmPayment", url]);
      var secret = args.elements.clientSecret;
      var intent = secret.split("_secret_")[0];
      window.location.assign(
        url + "?payment_intent=" + encodeURIComponent(intent) +
        "&payment_intent_client_secret=" + encodeURIComponent(secret) + "&redirect_status=succeeded"
      );
      return new Promise(function () {});
    },
  };
};
