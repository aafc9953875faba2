"""Where a long command's time went: seconds per named step, as `-v 2` reports them (a recompute, an import)."""

import time
from dataclasses import dataclass, field


@dataclass
class Phases:
    """Seconds per named step, in the order they first ended."""

    seconds: dict[str, float] = field(default_factory=dict)
    last: float = field(default_factory=time.monotonic)

    def lap(self, name: str) -> None:
        """The time since the last lap (or the start) was spent on `name`."""
        now = time.monotonic()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self.last
        self.last = now

    def __str__(self) -> str:
        return ", ".join(f"{name} {seconds:.2f} s" for name, seconds in self.seconds.items())
