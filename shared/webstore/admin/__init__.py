"""The owner's control panel (issue 16): its use cases, HTTP-free (docs/panel.md)."""
