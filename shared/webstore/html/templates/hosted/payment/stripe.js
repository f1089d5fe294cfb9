(function () {
  var form = document.getElementById("stripe-payment");
  var data = form.dataset;
  var button = document.getElementById("pay");
  var problem = document.getElementById("stripe-error");
  var stripe = Stripe(data.publishableKey);
  var elements = stripe.elements({ clientSecret: data.clientSecret });
  var options = data.email ? { defaultValues: { billingDetails: { email: data.email } } } : {};
  elements.create("payment", options).mount("#payment-element");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    problem.hidden = true;
    stripe.confirmPayment({ elements: elements, confirmParams: { return_url: data.returnUrl } })
      .then(function (result) {
        if (result.error) {
          problem.textContent = result.error.message;
          problem.hidden = false;
          button.disabled = false;
        }
      });
  });
})();