(function () {
  var form = document.getElementById("stripe-authentication");
  var data = form.dataset;
  var button = document.getElementById("confirm");
  var problem = document.getElementById("stripe-error");
  var done = document.getElementById("stripe-done");
  var stripe = Stripe(data.publishableKey);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    problem.hidden = true;
    stripe.confirmCardPayment(data.clientSecret, { payment_method: data.paymentMethod })
      .then(function (result) {
        if (result.error) {
          problem.textContent = result.error.message;
          problem.hidden = false;
          button.disabled = false;
        } else {
          form.hidden = true;
          done.hidden = false;
        }
      });
  });
})();