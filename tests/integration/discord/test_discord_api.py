"""The Discord adapter (webstore.discord.http) against the loopback stand-in: each route the store
uses, Discord's pitfalls, and the rate limits (bucket, global, `retry_after`) and 5xx."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from tests.support.discord_standin import StandInDiscord, running
from webstore.discord import DiscordRefused, DiscordRetryLater, Member
from webstore.discord.http import HttpDiscord, RateLimits, route_key

GUILD = "900000000000000001"
VIP, MVP, ADMIN, BOT_ROLE = "910", "911", "999", "950"
PLAYER = "700000000000000001"


@pytest.fixture
def discord() -> Iterator[StandInDiscord]:
    standin = StandInDiscord()
    standin.add_guild(
        GUILD,
        "Craft",
        {VIP: ("VIP", 2), MVP: ("MVP", 3), BOT_ROLE: ("Store bot", 5), ADMIN: ("Admin", 9)},
        BOT_ROLE,
    )
    standin.add_user(PLAYER, "steve")
    with running(standin) as served:
        yield served


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def adapter(discord: StandInDiscord, sleep: Sleeps | None = None, max_wait: float = 2.0) -> HttpDiscord:
    return HttpDiscord(
        client_id=discord.client_id,
        client_secret=discord.client_secret,
        bot_token=discord.bot_token,
        base_url=discord.base_url,
        max_wait=max_wait,
        sleep=sleep or Sleeps(),
    )


def test_oauth_code_exchange_with_pkce_then_the_user(discord: StandInDiscord) -> None:
    discord.signed_in = PLAYER
    verifier = "v" * 64
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    redirect = "http://127.0.0.1:1/discord/callback"
    query = {
        "client_id": discord.client_id,
        "response_type": "code",
        "redirect_uri": redirect,
        "scope": "identify guilds.join",
        "state": "s1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    page = httpx.get(discord.authorize_url + "?" + urlencode(query))
    assert page.status_code == 200 and "steve" in page.text
    approve = page.text.split('href="')[1].split('"')[0].replace("&amp;", "&")
    back = httpx.get(f"http://127.0.0.1:{discord.port}{approve}")
    assert back.status_code == 302
    answer = parse_qs(urlsplit(back.headers["location"]).query)
    assert answer["state"] == ["s1"]
    api = adapter(discord)
    with pytest.raises(DiscordRefused) as wrong:
        api.exchange_code(answer["code"][0], redirect, "w" * 64)  # a wrong verifier burns the code
    assert wrong.value.status == 400
    back = httpx.get(f"http://127.0.0.1:{discord.port}{approve}")
    code = parse_qs(urlsplit(back.headers["location"]).query)["code"][0]
    token = api.exchange_code(code, redirect, verifier)
    assert token.scopes == {"identify", "guilds.join"}
    user = api.current_user(token.access_token)
    assert (user.id, user.display_name) == (PLAYER, "steve")
    with pytest.raises(DiscordRefused):
        api.exchange_code(code, redirect, verifier)  # a code is good once


def test_bot_reads_its_guilds_roles_and_own_member(discord: StandInDiscord) -> None:
    api = adapter(discord)
    assert api.bot_user().id == discord.bot_id
    assert [g.name for g in api.bot_guilds()] == ["Craft"]
    roles = {r.id: r.position for r in api.guild_roles(GUILD)}
    assert roles[BOT_ROLE] == 5 and roles[ADMIN] == 9
    assert api.get_member(GUILD, discord.bot_id) == Member(discord.bot_id, frozenset({BOT_ROLE}))
    assert api.get_member(GUILD, PLAYER) is None


def test_add_member_with_roles_then_already_a_member(discord: StandInDiscord) -> None:
    api = adapter(discord)
    token = discord.issue_token(PLAYER)
    assert api.add_member(GUILD, PLAYER, token, [VIP]) is True
    assert discord.roles_of(GUILD, PLAYER) == {VIP}
    # Already a member: Discord answers 204 and ignores the roles; the caller adds them one by one.
    assert api.add_member(GUILD, PLAYER, token, [MVP]) is False
    assert discord.roles_of(GUILD, PLAYER) == {VIP}
    api.add_role(GUILD, PLAYER, MVP, "bought MVP")
    assert discord.roles_of(GUILD, PLAYER) == {VIP, MVP}


def test_add_member_needs_guilds_join(discord: StandInDiscord) -> None:
    with pytest.raises(DiscordRefused) as refused:
        adapter(discord).add_member(GUILD, PLAYER, discord.issue_token(PLAYER, "identify"), [VIP])
    assert refused.value.status == 403


def test_removing_a_role_not_held_or_of_a_member_who_left_is_success(discord: StandInDiscord) -> None:
    api = adapter(discord)
    api.remove_role(GUILD, PLAYER, VIP, "ended")  # not a member
    discord.guilds[GUILD].members[PLAYER] = set()
    api.remove_role(GUILD, PLAYER, VIP, "ended")  # a member without it
    assert discord.roles_of(GUILD, PLAYER) == set()


def test_a_role_above_the_bot_is_refused_as_hierarchy(discord: StandInDiscord) -> None:
    discord.guilds[GUILD].members[PLAYER] = set()
    with pytest.raises(DiscordRefused) as refused:
        adapter(discord).add_role(GUILD, PLAYER, ADMIN, "bought admin?")
    assert refused.value.hierarchy and refused.value.code == 50013
    assert "Missing Permissions" in refused.value.body


def test_a_short_429_is_waited_out_and_retried_once(discord: StandInDiscord) -> None:
    discord.guilds[GUILD].members[PLAYER] = set()
    sleeps = Sleeps()
    discord.fail_next(429, retry_after=0.25, match="/roles/")
    adapter(discord, sleeps).add_role(GUILD, PLAYER, VIP, "bought VIP")
    assert sleeps.waits == [pytest.approx(0.25, abs=0.01)]
    assert discord.calls == [("PUT", f"/guilds/{GUILD}/members/{PLAYER}/roles/{VIP}")]


def test_a_long_429_is_retry_later_and_nothing_is_sent_until_it_passes(discord: StandInDiscord) -> None:
    discord.guilds[GUILD].members[PLAYER] = set()
    sleeps = Sleeps()
    api = adapter(discord, sleeps)
    discord.fail_next(429, retry_after=30.0, is_global=True)
    with pytest.raises(DiscordRetryLater) as later:
        api.add_role(GUILD, PLAYER, VIP, "bought VIP")
    assert later.value.retry_after == 30.0 and later.value.status == 429
    asked = len(discord.requests)
    with pytest.raises(DiscordRetryLater):  # the global limit: no call at all, on any route
        api.guild_roles(GUILD)
    assert len(discord.requests) == asked and sleeps.waits == []
    assert discord.calls == []


def test_a_spent_bucket_is_waited_for_before_the_next_call(discord: StandInDiscord) -> None:
    discord.guilds[GUILD].members[PLAYER] = set()
    sleeps = Sleeps()
    api = adapter(discord, sleeps)
    discord.spend_bucket("PUT", f"/guilds/{GUILD}/members/{PLAYER}/roles/{VIP}", 0.5)
    api.add_role(GUILD, PLAYER, VIP, "a")  # answered, saying Remaining 0
    assert sleeps.waits == []
    discord._spent.clear()  # the stand-in's bucket resets; the adapter still waits as told
    api.add_role(GUILD, PLAYER, MVP, "b")  # same bucket (roles/:id), same guild: waits first
    assert len(sleeps.waits) == 1 and 0 < sleeps.waits[0] <= 0.5


def test_5xx_and_no_answer_are_retry_later(discord: StandInDiscord) -> None:
    discord.fail_next(502)
    with pytest.raises(DiscordRetryLater) as later:
        adapter(discord).guild_roles(GUILD)
    assert later.value.status == 502
    gone = HttpDiscord(client_id="1", client_secret="s", bot_token="t", base_url="http://127.0.0.1:9/api/v10")
    with pytest.raises(DiscordRetryLater):
        gone.bot_user()


def test_a_wrong_bot_token_is_refused(discord: StandInDiscord) -> None:
    api = HttpDiscord(client_id="1", client_secret="s", bot_token="wrong", base_url=discord.base_url)
    with pytest.raises(DiscordRefused) as refused:
        api.bot_guilds()
    assert refused.value.status == 401


def test_route_keys_keep_major_parameters_only() -> None:
    assert route_key("PUT", f"/guilds/{GUILD}/members/{PLAYER}/roles/{VIP}") == (
        "PUT /guilds/{}/members/:id/roles/:id",
        GUILD,
    )
    limits = RateLimits(clock=lambda: 100.0)
    limits.update(
        "GET",
        "/guilds/1/roles",
        {"x-ratelimit-bucket": "b", "x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "3"},
    )
    assert limits.wait_needed("GET", "/guilds/1/roles") == 3.0
    assert limits.wait_needed("GET", "/guilds/2/roles") == 0.0  # another guild: another bucket
