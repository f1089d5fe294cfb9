"""The operator interface's use cases: auth, the command queue, payments and fulfilment, admin."""
