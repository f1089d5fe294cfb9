"""A Stripe Tax transaction retried (webstore.payments.tax_retry): first with the payment's own
idempotency key, so a transaction Stripe made whose answer was lost is found again (Stripe
replays it) rather than refused as a second one; a new key only when that key's answer is an
error."""

from __future__ import annotations

import pytest

from webstore.payments.tax_retry import record_again


class FakeStripeTax:
    """Stripe's idempotency as it is: a key it saw gets the same answer again."""

    def __init__(self, first_answer: str | Exception) -> None:
        self.answers: dict[str, str | Exception] = {"taxtxn-tbx-1": first_answer}
        self.keys: list[str] = []

    def record(self, calculation_id: str, reference: str, attempt: str = "") -> str:
        key = f"taxtxn-{reference}{'-' + attempt if attempt else ''}"
        self.keys.append(key)
        answer = self.answers.setdefault(key, f"tax_txn_{len(self.answers)}")
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_transaction_whose_answer_was_lost_is_found_with_its_own_key() -> None:
    stripe = FakeStripeTax("tax_txn_made")  # made at payment time; the answer never arrived
    assert record_again(stripe, "taxcalc_1", "tbx-1") == "tax_txn_made"
    assert stripe.keys == ["taxtxn-tbx-1"]


def test_a_key_whose_answer_was_an_error_gives_way_to_a_new_one() -> None:
    stripe = FakeStripeTax(RuntimeError("Stripe was down"))
    made = record_again(stripe, "taxcalc_1", "tbx-1")
    assert made.startswith("tax_txn_") and len(stripe.keys) == 2
    assert stripe.keys[1].startswith("taxtxn-tbx-1-retry-")


def test_a_new_key_refused_too_passes_the_error_on() -> None:
    class Down(FakeStripeTax):
        def record(self, calculation_id: str, reference: str, attempt: str = "") -> str:
            raise RuntimeError("still down")

    with pytest.raises(RuntimeError, match="still down"):
        record_again(Down("x"), "taxcalc_1", "tbx-1")
