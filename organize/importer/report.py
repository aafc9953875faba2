"""What an import did, or would do with dry_run: counts per file, corrections, what its changes affect."""

from dataclasses import dataclass, field
from datetime import date

from lib.timing import Phases


@dataclass
class Tally:
    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0

    def __str__(self):
        parts = [f"{self.created} created", f"{self.updated} updated"]
        if self.deleted:
            parts.append(f"{self.deleted} deleted")
        parts.append(f"{self.unchanged} unchanged")
        return ", ".join(parts)


@dataclass
class CorrectionTally:
    """Changes to matches of events already rated, recorded in the correction log (SPEC 5)."""

    results: int = 0
    removed: int = 0
    added: int = 0

    def __bool__(self):
        return bool(self.results or self.removed or self.added)

    def __str__(self):
        parts = [f"{self.results} result{'' if self.results == 1 else 's'} corrected"]
        if self.removed:
            parts.append(f"{self.removed} match{'' if self.removed == 1 else 'es'} removed")
        if self.added:
            parts.append(f"{self.added} match{'' if self.added == 1 else 'es'} added")
        return ", ".join(parts)


@dataclass
class ImportReport:
    dry_run: bool = False
    categories: Tally = field(default_factory=Tally)
    players: Tally = field(default_factory=Tally)
    teams: Tally = field(default_factory=Tally)
    events: Tally = field(default_factory=Tally)
    matches: Tally = field(default_factory=Tally)
    standings: Tally = field(default_factory=Tally)
    # Category slug -> the earliest date whose ratings the import changes.
    affected: dict[str, date] = field(default_factory=dict)
    # (format, team size) -> the earliest date whose results the import changes (events.signals.results_changed).
    kinds: dict[tuple[str, int], date] = field(default_factory=dict)
    corrections: CorrectionTally = field(default_factory=CorrectionTally)
    phases: Phases = field(default_factory=Phases)  # where the time went (import_results -v 2 shows it)

    @property
    def changed(self) -> bool:
        return any(
            tally.created or tally.updated or tally.deleted
            for tally in (self.categories, self.players, self.teams, self.events, self.matches, self.standings)
        )

    def __str__(self):
        lines = ["Dry run: nothing was saved." if self.dry_run else "Import complete."]
        for name in ("categories", "players", "teams", "events", "matches", "standings"):
            lines.append(f"  {name}: {getattr(self, name)}")
        if self.corrections:
            where = "would be recorded" if self.dry_run else "recorded"
            lines.append(f"  corrections: {self.corrections} ({where} in the correction log)")
        if self.affected:
            since = ", ".join(
                f"{slug} {'whole history' if day == date.min else f'from {day:%Y-%m-%d}'}"
                for slug, day in sorted(self.affected.items())
            )
            lines.append(f"  ratings affected: {since}")
        elif not self.changed:
            lines.append("  nothing changed")
        return "\n".join(lines)
