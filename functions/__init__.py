"""The Lambda entry points: one module per operation or event consumer.

Loading this package pauses garbage collection in Lambda until the first invocation
(`functions.cold_start`): the handler's imports come after it.
"""

from functions.cold_start import pause_collection_during_init

pause_collection_during_init()
