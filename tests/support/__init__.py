"""What tests and scripts share: the test environment, Lambda events, the demo store, seeds,
threads and the access guard. `tests/conftest.py` only turns these into fixtures.

- environment: the variables every test and benchmark runs with (`use_test_environment`)
- lambda_events: API Gateway v2 events, a Lambda context, the handler's response
- invocation: call a handler under the access guard (the `invoke` fixture)
- access_guard: a handler may touch only what its route table line declares
- demo: the demo catalog and the store it imports
- baskets: a basket written straight to the table
- threads: concurrent "instances"
- local_stack: `webstore serve` on free ports (the e2e fixture and scripts/load_local.py)
- clock: a controllable services clock
"""

from tests.support.baskets import seed_basket
from tests.support.threads import in_threads

__all__ = ["in_threads", "seed_basket"]
