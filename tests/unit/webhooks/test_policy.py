"""The webhook URL policy: http(s) only, public addresses only (every resolved address)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from webstore.webhooks.policy import UrlRefused, check_url


def resolving_to(*addresses: str):  # type: ignore[no-untyped-def]
    def resolve(host: str, port: int) -> Sequence[str]:
        return addresses

    return resolve


def not_resolving(host: str, port: int) -> Sequence[str]:
    raise OSError("NXDOMAIN")


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.216.34/hook",
        "http://8.8.8.8:8080/hook?token=abc",
        "https://[2606:4700:4700::1111]/hook",
    ],
)
def test_public_addresses_are_allowed(url: str) -> None:
    target = check_url(url, allow_private=False)
    assert target.addresses


def test_a_target_keeps_host_port_path_and_query() -> None:
    target = check_url(
        "https://hooks.example.com:8443/tebex?x=1",
        allow_private=False,
        resolver=resolving_to("93.184.216.34"),
    )
    assert (target.scheme, target.host, target.port, target.path) == (
        "https",
        "hooks.example.com",
        8443,
        "/tebex?x=1",
    )
    assert target.addresses == ("93.184.216.34",)
    assert check_url("http://example.com", allow_private=False, resolver=resolving_to("1.1.1.1")).path == "/"
    assert check_url("http://example.com", allow_private=False, resolver=resolving_to("1.1.1.1")).port == 80


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://93.184.216.34/hook", "only http and https"),
        ("file:///etc/passwd", "only http and https"),
        ("javascript:alert(1)", "only http and https"),
        ("https:///nohost", "no host"),
        ("https://user:pass@93.184.216.34/", "credentials"),
        ("http://93.184.216.34:99999/", "not a valid URL"),
        ("http://127.0.0.1/", "loopback"),
        ("http://127.8.9.10/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://10.1.2.3/", "private"),
        ("http://172.16.0.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://169.254.169.254/latest/meta-data", "link-local"),  # instance metadata
        ("http://[fe80::1]/", "link-local"),
        ("http://[fd00::1]/", "private"),
        ("http://100.64.0.1/", "not globally routable"),  # carrier-grade NAT
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "not a public address"),  # reserved (Python files it as private)
        ("http://[::ffff:127.0.0.1]/", "loopback"),  # IPv4-mapped
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("http://[2002:a00:1::]/", "private"),  # 6to4 of 10.0.0.1
        ("http://[64:ff9b::a9fe:a9fe]/", "link-local"),  # NAT64 of 169.254.169.254
    ],
)
def test_refused_urls(url: str, reason: str) -> None:
    with pytest.raises(UrlRefused, match=reason):
        check_url(url, allow_private=False, resolver=resolving_to("93.184.216.34"))


def test_every_resolved_address_is_checked() -> None:
    with pytest.raises(UrlRefused, match="private"):
        check_url(
            "https://hooks.example.com/",
            allow_private=False,
            resolver=resolving_to("93.184.216.34", "10.0.0.5"),
        )


def test_names_that_resolve_to_loopback_are_refused() -> None:
    with pytest.raises(UrlRefused, match="loopback"):
        check_url("http://localhost:8080/", allow_private=False, resolver=resolving_to("127.0.0.1", "::1"))


def test_unresolvable_hosts_are_refused() -> None:
    with pytest.raises(UrlRefused, match="does not resolve"):
        check_url("https://nowhere.invalid/", allow_private=False, resolver=not_resolving)
    with pytest.raises(UrlRefused, match="does not resolve"):
        check_url("https://nowhere.invalid/", allow_private=False, resolver=resolving_to())


def test_the_setting_allows_private_addresses_but_not_other_schemes() -> None:
    target = check_url("http://localhost:8080/hook", allow_private=True, resolver=resolving_to("127.0.0.1"))
    assert target.addresses == ("127.0.0.1",)
    assert check_url("http://10.0.0.1/", allow_private=True).addresses == ("10.0.0.1",)
    with pytest.raises(UrlRefused):
        check_url("ftp://127.0.0.1/", allow_private=True)
