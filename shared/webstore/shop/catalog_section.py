"""The catalog file's `shop` section (docs/shop.md, "The look and templates in the catalog
file"): the shop's look and the owner's templates, carried by `webstore export` / `webstore
import` like the rest of the store. The look is checked field by field as the panel's Look form
checks it (a wrong value names `shop.look.<field>`); the templates are checked when the import
renders every page of the shop with them (webstore.shop.theme.catalog_theme)."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from webstore.errors import Invalid
from webstore.model import Model
from webstore.repo.shop_theme import ShopLook, ShopTheme
from webstore.shop.look_rules import check_look_field

MAX_TEMPLATE_CHARS = 32_000  # as the panel's editor (webstore.shop.theme.MAX_SOURCE_CHARS)


class LookSection(ShopLook):
    """`shop.look`: every setting of panel → Shop → Look ("" keeps the store's own)."""

    @field_validator("*")
    @classmethod
    def _checked(cls, value: str, info: ValidationInfo) -> str:
        try:
            return check_look_field(str(info.field_name), value)
        except Invalid as error:
            raise ValueError(error.detail) from None


class ShopSection(Model):
    """`shop`: the look, and the owner's templates by file name (a name left out is the house's)."""

    look: LookSection = Field(default_factory=LookSection)
    templates: dict[str, str] = Field(default_factory=dict)

    @field_validator("templates")
    @classmethod
    def _sized(cls, value: dict[str, str]) -> dict[str, str]:
        for name, source in value.items():
            if len(source) > MAX_TEMPLATE_CHARS:
                raise ValueError(
                    f"{name} has {len(source):,} characters; a template may have {MAX_TEMPLATE_CHARS:,}"
                )
        return {name: source.replace("\r\n", "\n").replace("\r", "\n") for name, source in value.items()}

    @staticmethod
    def of(theme: ShopTheme) -> ShopSection | None:
        """The live theme as the file has it; None for a shop on the house's look and files."""
        if not theme.sources and theme.look == ShopLook():
            return None
        return ShopSection(
            look=LookSection(**theme.look.model_dump()), templates=dict(sorted(theme.sources.items()))
        )
