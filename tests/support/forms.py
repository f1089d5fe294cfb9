"""What a browser would post back from a page's form: the successful controls of the first
form matching a selector (inputs with their values, checked boxes only, a select's selected
option or else its first, textareas' text), read with the standard library's HTML parser."""

from __future__ import annotations

from html.parser import HTMLParser


class _Form(HTMLParser):
    def __init__(self, form_class: str | None, action: str | None) -> None:
        super().__init__(convert_charrefs=True)
        self.form_class, self.action = form_class, action
        self.inside = False
        self.done = False
        self.fields: dict[str, str] = {}
        self.select: str | None = None
        self.first_option: str | None = None
        self.textarea: str | None = None
        self.option_value: str | None = None

    def _matches(self, attrs: dict[str, str | None]) -> bool:
        classes = (attrs.get("class") or "").split()
        return (self.form_class is None or self.form_class in classes) and (
            self.action is None or attrs.get("action") == self.action
        )

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attrs_list)
        if tag == "form" and not self.done and self._matches(attrs):
            self.inside = True
            return
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = (attrs.get("type") or "text").lower()
            if kind in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.fields[name] = attrs.get("value") or "on"
            elif kind not in ("submit", "button"):
                self.fields[name] = attrs.get("value") or ""
        elif tag == "select" and name:
            self.select, self.first_option = name, None
        elif tag == "option" and self.select is not None:
            value = attrs.get("value") or ""
            if self.first_option is None:
                self.first_option = value
            if "selected" in attrs:
                self.fields[self.select] = value
        elif tag == "textarea" and name:
            self.textarea = name
            self.fields[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.inside:
            self.inside, self.done = False, True
        elif tag == "select" and self.select is not None:
            if self.select not in self.fields and self.first_option is not None:
                self.fields[self.select] = self.first_option
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.fields[self.textarea] += data


def form_fields(html: str, *, form_class: str | None = None, action: str | None = None) -> dict[str, str]:
    """The fields the first form with that class (and/or action) would submit unchanged."""
    parser = _Form(form_class, action)
    parser.feed(html)
    assert parser.done, f"no form with class {form_class!r} and action {action!r} on the page"
    return parser.fields
