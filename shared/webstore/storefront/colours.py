"""A store's colours on its hosted pages, kept readable whatever the owner picked.

The owner sets `primary_color` and `accent_color` (#rrggbb) in the catalog. The primary colour
fills the banner and the pay button, with black or white text, whichever contrasts more (WCAG
2.x ratio; one of them always reaches 4.5:1). Links use it only when it reaches 4.5:1 on white,
focus rings use the accent only when it reaches 3:1 (non-text contrast); otherwise the pages'
default blue stays. The result is a tiny stylesheet of CSS variables that the page's policy
allows by its hash (`Brand.policy`, webstore.html.player). Pure: the shop's pages use it without
the hosted pages' brand (webstore.storefront.theme).
"""

from __future__ import annotations

from webstore.catalog import StoreProfile

WHITE = "#ffffff"
INK = "#000000"
DEFAULT = "#1a5fb4"
TEXT_CONTRAST = 4.5
UI_CONTRAST = 3.0


def luminance(color: str) -> float:
    """Relative luminance of a #rrggbb colour (WCAG 2.x)."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def text_on(background: str) -> str:
    """White or black text, whichever reads better (one of them always reaches 4.5:1) on `background`."""
    return WHITE if contrast(background, WHITE) >= contrast(background, INK) else INK


def theme_style(store: StoreProfile) -> str:
    """The store's colours as CSS variables overriding the pages' defaults ("" without any)."""
    primary, accent = store.primary_color, store.accent_color
    if not primary and not accent:
        return ""
    variables: dict[str, str] = {}
    if primary:
        primary = primary.lower()
        variables["--brand"] = primary
        variables["--on-brand"] = text_on(primary)
        if contrast(primary, WHITE) >= TEXT_CONTRAST:
            variables["--link"] = primary
            variables["--accent"] = primary
    if accent and contrast(accent.lower(), WHITE) >= UI_CONTRAST:
        variables["--accent"] = accent.lower()
    return ":root{" + ";".join(f"{name}:{value}" for name, value in variables.items()) + "}"
