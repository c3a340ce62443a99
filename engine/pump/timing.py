"""One handler call under its timeout, and the overrun check for handlers that block the loop.

A timeout can only interrupt a handler at an await; this module measures the call's wall time
so a handler that never yields is still caught. It never routes or counts anything itself.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from engine.pump.contract import HandlerMetadata, HandlerResult
from engine.pump.registry import Listener


class Overrun(Exception):
    """A handler answered after its timeout: it blocked the loop, so the timeout never fired."""

    def __init__(self, elapsed: float) -> None:
        super().__init__(elapsed)
        self.elapsed = elapsed


async def call_handler(
    listener: Listener, payload: Any, metadata: HandlerMetadata
) -> HandlerResult:
    """Run the handler under its timeout. A timeout can only interrupt a handler at an await;
    one that blocks the loop past it is caught afterwards by its wall time (`Overrun`)."""
    timeout = listener.timeout
    if timeout is None:
        return await listener.handler(payload, metadata)
    started = time.monotonic()
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):
            result = await listener.handler(payload, metadata)
    else:
        result = await asyncio.wait_for(listener.handler(payload, metadata), timeout)
    elapsed = time.monotonic() - started
    if elapsed > timeout:
        raise Overrun(elapsed)
    return result
