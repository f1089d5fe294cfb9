"""GET /information's shapes (SPEC.md, COMPAT.md) and the view that fills them: apart from the
interface's other shapes (`schemas`, which re-exports them), so that the function plugins call
first on every start loads only these."""

from typing import TYPE_CHECKING

from webstore.money import symbol
from webstore.operator.wire import Wire

if TYPE_CHECKING:
    from webstore.catalog import Store
    from webstore.servers import Server


class Currency(Wire):
    iso_4217: str
    symbol: str


class InformationAccount(Wire):
    id: int
    domain: str
    name: str
    currency: Currency
    online_mode: bool
    game_type: str
    log_events: bool


class ServerRef(Wire):
    id: int
    name: str


class Information(Wire):
    account: InformationAccount
    server: ServerRef


def information_view(store: "Store", server: "Server") -> Information:
    return Information(
        account=InformationAccount(
            id=store.id,
            domain=store.webstore_url,
            name=store.name,
            currency=Currency(iso_4217=store.currency, symbol=symbol(store.currency)),
            online_mode=store.online_mode,
            game_type=store.game_type,
            log_events=store.log_events,
        ),
        server=ServerRef(id=server.id, name=server.name),
    )
