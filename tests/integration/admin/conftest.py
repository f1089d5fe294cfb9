"""Panel tests run against the demo store (account 1); `other_store` adds account 2."""
