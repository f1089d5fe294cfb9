"""A store's colours on its hosted pages (`storefront.theme`) and the branding settings the
catalog accepts (`StoreProfile`): readable whatever the owner picks, refused when malformed."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from webstore.catalog import StoreProfile
from webstore.storefront.colours import contrast, text_on, theme_style


def profile(**fields: Any) -> StoreProfile:
    return StoreProfile(id=1, name="Demo", **fields)


def test_contrast_is_the_wcag_ratio() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert contrast("#777777", "#777777") == 1.0
    assert round(contrast("#1a5fb4", "#ffffff"), 2) == 6.29


@pytest.mark.parametrize(
    "colour", ["#000000", "#ffffff", "#f5a524", "#2d1b69", "#777777", "#00ff00", "#ff0000"]
)
def test_text_on_any_brand_colour_reaches_four_and_a_half_to_one(colour: str) -> None:
    assert contrast(colour, text_on(colour)) >= 4.5


def test_a_dark_primary_colours_links_and_focus_a_light_one_only_fills() -> None:
    dark = theme_style(profile(primary_color="#2D1B69", accent_color="#f5a524"))
    assert dark == ":root{--brand:#2d1b69;--on-brand:#ffffff;--link:#2d1b69;--accent:#2d1b69}"
    light = theme_style(profile(primary_color="#ffe066", accent_color="#d9480f"))
    # too light for text on white: the links keep the default; the accent still frames focus (3:1)
    assert light == ":root{--brand:#ffe066;--on-brand:#000000;--accent:#d9480f}"
    assert theme_style(profile(accent_color="#eeeeee")) == ":root{}"
    assert theme_style(profile()) == ""


@pytest.mark.parametrize(
    "fields",
    [
        {"primary_color": "red"},
        {"primary_color": "#12345"},
        {"accent_color": "#1234567"},
        {"accent_color": "#12345g"},
        {"terms_url": "javascript:alert(1)"},
        {"refund_policy_url": "ftp://shop.test/refunds"},
        {"terms_url": 'https://shop.test/"><script>'},
    ],
)
def test_malformed_branding_is_refused_naming_the_field(fields: dict[str, str]) -> None:
    with pytest.raises(ValidationError) as refused:
        profile(**fields)
    assert next(iter(fields)) in str(refused.value)


def test_branding_is_optional_and_kept() -> None:
    store = profile(
        logo="https://shop.test/logo.png",
        primary_color="#2d1b69",
        accent_color="#F5A524",
        terms_url="https://shop.test/terms",
        refund_policy_url="http://localhost:3000/refunds",
    )
    assert (store.primary_color, store.accent_color) == ("#2d1b69", "#F5A524")
    assert profile().terms_url is None and profile().primary_color is None
