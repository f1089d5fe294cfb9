"""Catalog edits from the panel: the panel calls the catalog's one edit use case
(webstore.catalog_edit), the same the operator interface calls, with the form's revision."""

from __future__ import annotations

from webstore.catalog_edit import (
    KINDS,
    CatalogInvalid,
    Events,
    Kind,
    Saved,
    catalog_revision,
    delete_element,
    save_element,
    save_gateways,
    save_sidebar_module,
    save_store_settings,
)

__all__ = [
    "KINDS",
    "CatalogInvalid",
    "Events",
    "Kind",
    "Saved",
    "catalog_revision",
    "delete_element",
    "save_element",
    "save_gateways",
    "save_sidebar_module",
    "save_store_settings",
]
