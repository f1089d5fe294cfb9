"""The house's HTML toolkit (issue 21). Owned by the toolkit; the shop adds `owner` (owner-editable
templates in Jinja2's sandbox)."""
