"""The records of issue 26: a payment's tax as the records read it (`taxes`), its invoice and
credit notes as documents (`documents`), and the tax report (`report`). docs/tax.md."""
