"""The one error every auth store raises when it cannot answer."""

from __future__ import annotations

from fw.problems import Problem
from fw.userinfo import scrub


class StoreUnavailable(Problem):
    """A store could not answer (down, unreachable, timing out, or missing its tables).

    Every backend raises this one error for every failure, so a policy needs one ``except``
    whichever engine is configured. It is a 503 problem with code ``unavailable``: a handler may
    let it propagate or hand it to ``fw.write_problem``. The reason stays in logs and is never
    part of the response; a URL it quotes (a driver's message naming the server) is logged with
    its user information masked.
    """

    status = 503
    code = "unavailable"

    def __init__(self, reason: str = "") -> None:
        super().__init__()
        self.reason = scrub(reason)

    def __str__(self) -> str:
        return self.reason or str(self.detail)
