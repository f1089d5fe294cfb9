"""Maintenance mode's allow-list: addresses, networks (IPv4 and IPv6) and player names."""

from __future__ import annotations

import pytest

from webstore.errors import Invalid
from webstore.shop.maintenance import closed, parse_allow_list, parse_message


def test_entries_are_addresses_networks_or_names_and_come_back_normalized() -> None:
    allow, shown = parse_allow_list("203.0.113.7 198.51.100.9/24,\n2001:db8::/32; Notch .Bedrock_Guy Notch")
    assert shown == "203.0.113.7/32, 198.51.100.0/24, 2001:db8::/32, Notch, .Bedrock_Guy"
    assert allow.admits("198.51.100.200", None) and allow.admits("2001:db8::1", None)
    assert allow.admits("192.0.2.1", "notch") and allow.admits("192.0.2.1", ".bedrock_guy")
    assert not allow.admits("192.0.2.1", "Steve") and not allow.admits("unknown", None)
    assert parse_allow_list("") == (parse_allow_list(" , ")[0], "")


def test_any_stores_bedrock_names_are_names_their_spaces_written_as_underscores() -> None:
    """Any prefix (symbols or letters) or none; a gamertag's spaces are `_` on the list (entries
    are separated by spaces), and match the logged-in name with spaces or with underscores."""
    allow, shown = parse_allow_list(".Steve_Jobs, BE_Big_Tree *Al Al Zed_Ox\nbedrock.x")
    assert shown == ".Steve_Jobs, BE_Big_Tree, *Al, Al, Zed_Ox, bedrock.x"
    for name in (
        ".Steve Jobs",
        ".steve_jobs",
        "BE_Big Tree",
        "be_big_tree",
        "*Al",
        "Al",
        "Zed Ox",
        "BEDROCK.X",
    ):
        assert allow.admits("192.0.2.1", name), name
    for name in ("Steve Jobs", ".Steve", "*Steve Jobs", "BE_Big", "Al_", "Zed  Ox"):
        assert not allow.admits("192.0.2.1", name), name
    assert not closed("on", ".Steve_Jobs", "192.0.2.1", ".Steve Jobs")


@pytest.mark.parametrize(
    "entry",
    ["1.2.3", "203.0.113.256", "10.0.0.0/33", "::g", "a b<", "x" * 25, "abcdefghi.Steve", "Stève", "Ste<"],
)
def test_anything_else_is_refused_naming_the_entry(entry: str) -> None:
    with pytest.raises(Invalid) as refused:
        parse_allow_list(entry)
    assert refused.value.field == "maintenance_allow" and "Allowed during maintenance" in refused.value.detail
    assert repr(entry.split()[-1][:60]) in refused.value.detail  # the entry named


def test_the_shop_is_closed_only_while_on_and_only_to_those_not_listed() -> None:
    assert not closed("", "", "192.0.2.1", None)
    assert closed("on", "", "192.0.2.1", None)
    assert not closed("on", "192.0.2.0/24", "192.0.2.1", None)
    assert not closed("on", "Notch", "192.0.2.1", "NOTCH")
    assert closed("on", "Notch", "192.0.2.1", None)


def test_the_message_keeps_its_lines_and_refuses_control_characters() -> None:
    assert parse_message(" one\r\ntwo ") == "one\ntwo"
    with pytest.raises(Invalid):
        parse_message("bell\x07")
