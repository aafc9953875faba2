"""Compare a valid bundle with the database and write the difference in bulk.

Players are matched by membership number, teams by their member set, events
by id; an event's matches and standings are matched by round and pairing and
by participant. Only what differs is written, so importing the same bundle
twice changes nothing the second time.
"""

from dataclasses import dataclass, field
from datetime import date
from itertools import count

from django.utils import timezone
from django_countries.fields import Country

from corrections.models import Appeal, AppealStatus, Correction, CorrectionKind, CorrectionSource
from events.models import Event, EventStatus, Match, Standing
from lib.bulk import allocate_ids, delete_ids, insert_rows, loaded_in_bulk
from organize.importer.validation import LOOKUP_CHUNK, ValidBundle
from players.models import Participant, Player, Team, team_member_key
from ratings.models import RULESET_DEFAULTS, Category, Ruleset

EVENT_FIELDS = (
    "name",
    "date",
    "format",
    "k",
    "player_count",
    "level2_judge",
    "team_size",
    "structure",
    "country",
    "city",
    "level",
)
# Fields whose change alters ratings, so the affected categories are recomputed.
RATED_EVENT_FIELDS = {"date", "format", "k", "player_count", "level2_judge", "team_size", "level"}


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
    corrections: CorrectionTally = field(default_factory=CorrectionTally)

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


def _chunks(items, size=LOOKUP_CHUNK):
    items = list(items)
    for start in range(0, len(items), size):
        yield items[start : start + size]


# Above this many numbers, one read of the players table is cheaper than
# building IN lists of thousands (1.6 s for 100,000 numbers).
WHOLE_TABLE_ABOVE = 20_000


def _players_numbered(numbers: set[str]):
    """The stored players whose membership numbers are among `numbers`."""
    players = Player.objects.only("id", "participant_id", "membership_number", "name", "country", "region")
    if len(numbers) > WHOLE_TABLE_ABOVE:
        return (player for player in players.iterator(chunk_size=10_000) if player.membership_number in numbers)
    return (player for chunk in _chunks(numbers) for player in players.filter(membership_number__in=chunk))


@dataclass
class ImportCorrections:
    """Record changed results of events already rated as corrections: by whom (None: each event's
    organizer) and why. A re-import fixing a misreported match is a correction like any other."""

    reason: str
    by: object = None
    source: str = CorrectionSource.IMPORT


@dataclass(frozen=True, slots=True)
class _MatchRow:
    """A match as the importer compares it, participant 1's games first."""

    event_id: int
    round: int
    participant1: int
    participant2: int | None
    games: tuple  # (games1, games2, draws, elimination)


class BundleWriter:
    """Writes one valid bundle; with dry_run it only counts what it would write.

    With `corrections`, changes to the matches of submitted or rated events are
    recorded as corrections (corrections.models.Correction). New players are
    public unless `new_players_public` is off (an organizer's draft: they
    become public when it is submitted, organize.services).
    """

    def __init__(
        self,
        bundle: ValidBundle,
        *,
        dry_run: bool,
        organizer=None,
        corrections: ImportCorrections | None = None,
        new_players_public: bool = True,
    ):
        self.bundle = bundle
        self.new_players_public = new_players_public
        self.dry_run = dry_run
        self.organizer = organizer
        self.corrections = corrections
        self._corrected: list[tuple[str, _MatchRow, _MatchRow | None, int | None]] = []  # kind, old/added, new, pk
        self.report = ImportReport(dry_run=dry_run)
        self._placeholder_ids = count(-1, -1)  # dry run: ids for rows that would be created
        self.touched_events: list[tuple[str, int, date]] = []  # (format, team size, date) whose ratings change
        self.redefined_categories: set[str] = set()  # recomputed whole

    def write(self) -> ImportReport:
        self.write_categories()
        player_ids = self.write_players()
        team_ids = self.write_teams(player_ids)
        events = self.write_events()
        self.write_results(events, player_ids, team_ids)
        self.report.affected = self.affected_categories()
        return self.report

    def _new_participants(self, kind: str, number: int) -> list[int]:
        if self.dry_run:
            return [next(self._placeholder_ids) for _ in range(number)]
        ids = allocate_ids(Participant, number)
        insert_rows(Participant, ["id", "kind"], ((pk, kind) for pk in ids))
        return ids

    # categories -----------------------------------------------------------

    def write_categories(self) -> None:
        tally = self.report.categories
        existing = {category.slug: category for category in Category.objects.all()}
        for record in self.bundle.categories:
            values = {
                **RULESET_DEFAULTS[Ruleset(record.ruleset)],
                "name": record.name,
                "ruleset": record.ruleset,
                "formats": record.formats,
                "team_size": record.team_size,
                "ranked_after": record.ranked_after,
            }
            if record.components:
                values["components"] = " ".join(record.components.split())
            category = existing.get(record.slug)
            if category is None:
                tally.created += 1
                self.redefined_categories.add(record.slug)
                if not self.dry_run:
                    Category.objects.create(slug=record.slug, position=len(existing) + tally.created, **values)
            elif any(getattr(category, name) != value for name, value in values.items()):
                tally.updated += 1
                self.redefined_categories.add(record.slug)
                if not self.dry_run:
                    for name, value in values.items():
                        setattr(category, name, value)
                    category.save()
            else:
                tally.unchanged += 1

    # players and teams ----------------------------------------------------

    def write_players(self) -> dict[str, tuple[int, int]]:
        """Membership number -> (player id, participant id) for every player the bundle names."""
        tally = self.report.players
        records = self.bundle.players
        numbers = records.keys() | self.bundle.registered_players
        ids: dict[str, tuple[int, int]] = {}
        changed = []
        for player in _players_numbered(numbers):
            ids[player.membership_number] = (player.pk, player.participant_id)
            record = records.get(player.membership_number)
            if record is None:
                continue
            if (player.name, player.country.code or "", player.region) != (record.name, record.country, record.region):
                player.name, player.country, player.region = record.name, record.country, record.region
                changed.append(player)
            else:
                tally.unchanged += 1
        new = [record for number, record in records.items() if number not in ids]
        participant_ids = self._new_participants(Participant.Kind.PLAYER, len(new))
        player_ids = participant_ids if self.dry_run else allocate_ids(Player, len(new))
        for record, player_id, participant_id in zip(new, player_ids, participant_ids, strict=True):
            ids[record.number] = (player_id, participant_id)
        if not self.dry_run:
            rows = (
                (
                    ids[record.number][0],
                    ids[record.number][1],
                    record.number,
                    record.name,
                    record.country,
                    record.region,
                    self.new_players_public,
                )
                for record in new
            )
            columns = ["id", "participant", "membership_number", "name", "country", "region", "public"]
            with loaded_in_bulk(Player, rows=len(new)):
                insert_rows(Player, columns, rows)
            Player.objects.bulk_update(changed, ["name", "country", "region"], batch_size=1000)
        tally.created += len(new)
        tally.updated += len(changed)
        return ids

    def write_teams(self, player_ids) -> dict[str, int]:
        """Bundle team id -> participant id."""
        tally = self.report.teams
        keys = {ref: team_member_key(record.members) for ref, record in self.bundle.teams.items()}
        existing: dict[str, Team] = {}
        for chunk in _chunks(set(keys.values())):
            existing.update((team.member_key, team) for team in Team.objects.filter(member_key__in=chunk))
        ids: dict[str, int] = {}
        renamed, new = [], {}
        for ref, record in self.bundle.teams.items():
            key = keys[ref]
            team = existing.get(key)
            if team is not None:
                ids[ref] = team.participant_id
                if record.name and team.name != record.name:
                    team.name = record.name
                    renamed.append(team)
                else:
                    tally.unchanged += 1
            elif key not in new:
                new[key] = record
        participant_ids = dict(zip(new, self._new_participants(Participant.Kind.TEAM, len(new)), strict=True))
        if not self.dry_run and new:
            teams = Team.objects.bulk_create(
                Team(participant_id=participant_ids[key], name=record.name, member_key=key)
                for key, record in new.items()
            )
            Team.members.through.objects.bulk_create(
                Team.members.through(team_id=team.pk, player_id=player_ids[member][0])
                for team, record in zip(teams, new.values(), strict=True)
                for member in record.members
            )
        if not self.dry_run:
            Team.objects.bulk_update(renamed, ["name"])
        for ref, key in keys.items():
            ids.setdefault(ref, participant_ids.get(key))
        tally.created += len(new)
        tally.updated += len({team.pk for team in renamed})
        return ids

    # events ---------------------------------------------------------------

    def write_events(self) -> dict[str, tuple[int, bool]]:
        """Event code -> (event id, whether it existed before)."""
        tally = self.report.events
        records = self.bundle.events
        existing: dict[str, Event] = {}
        for chunk in _chunks(records):
            existing.update((event.code, event) for event in Event.objects.filter(code__in=chunk))
        result: dict[str, tuple[int, bool]] = {}
        changed_events, changed_fields = [], set()
        new = []
        for code, record in records.items():
            values = self._event_values(record)
            event = existing.get(code)
            if event is None:
                new.append(Event(code=code, organizer=self.organizer, status=EventStatus.SUBMITTED, **values))
                self.touched_events.append((record.format, record.team_size, record.date))
                continue
            result[code] = (event.pk, True)
            differing = {name for name, value in values.items() if _stored(getattr(event, name)) != value}
            if not differing:
                tally.unchanged += 1
                continue
            if differing & RATED_EVENT_FIELDS:
                self.touched_events.append((event.format, event.team_size, event.date))
                self.touched_events.append((record.format, record.team_size, record.date))
            for name in differing:
                setattr(event, name, values[name])
            changed_events.append(event)
            changed_fields |= differing
        tally.created += len(new)
        tally.updated += len(changed_events)
        if self.dry_run:
            for event in new:
                result[event.code] = (next(self._placeholder_ids), False)
        else:
            # Created in file order, so ids follow the order the events were recorded in.
            for event in Event.objects.bulk_create(new):
                result[event.code] = (event.pk, False)
            if changed_events:
                Event.objects.bulk_update(changed_events, sorted(changed_fields))
        return result

    def _event_values(self, record) -> dict:
        return {
            "name": record.name,
            "date": record.date,
            "format": record.format,
            "k": record.k,
            "player_count": record.player_count or len(record.participants),
            "level2_judge": record.level2_judge,
            "team_size": record.team_size,
            "structure": record.structure,
            "country": record.country,
            "city": record.city,
            "level": record.level,
        }

    # matches and standings -----------------------------------------------

    def write_results(self, events, player_ids, team_ids) -> None:
        def participant(event_record, ref):
            if not ref:
                return None
            return team_ids[ref] if event_record.team_size > 1 else player_ids[ref][1]

        new_matches, new_standings = [], []
        existing_event_ids = {event_id: code for code, (event_id, existed) in events.items() if existed}
        # Events already rated whose match changes are corrections: event id -> its organizer's id.
        rated_organizers = self._rated_organizers(existing_event_ids) if self.corrections else {}
        stored_matches = self._stored_matches(existing_event_ids)
        stored_standings = self._stored_standings(existing_event_ids)
        match_updates, match_deletes, standing_updates, standing_deletes = [], [], [], []

        for code, record in self.bundle.events.items():
            event_id, existed = events[code]
            matches = [
                (event_id, rnd, participant(record, ref1), participant(record, ref2), g1, g2, draws, elim)
                for _, rnd, ref1, ref2, g1, g2, draws, elim in self.bundle.matches.get(code, ())
            ]
            standings = [
                (event_id, participant(record, ref), rank, vp, gw, final)
                for _, ref, rank, vp, gw, final in self.bundle.standings.get(code, ())
            ]
            if not existed:
                new_matches.extend(matches)
                new_standings.extend(standings)
                continue
            changed = self._diff_matches(
                matches,
                stored_matches.get(event_id, {}),
                new_matches,
                match_updates,
                match_deletes,
                corrected_event=event_id if event_id in rated_organizers else None,
            )
            changed |= self._diff_standings(
                standings, stored_standings.get(event_id, {}), new_standings, standing_updates, standing_deletes
            )
            if changed:
                self.touched_events.append((record.format, record.team_size, record.date))

        self.report.matches.created += len(new_matches)
        self.report.matches.updated += len(match_updates)
        self.report.matches.deleted += len(match_deletes)
        self.report.standings.created += len(new_standings)
        self.report.standings.updated += len(standing_updates)
        self.report.standings.deleted += len(standing_deletes)
        for kind, *_ in self._corrected:
            tally = self.report.corrections
            if kind == CorrectionKind.RESULT:
                tally.results += 1
            elif kind == CorrectionKind.REMOVAL:
                tally.removed += 1
            else:
                tally.added += 1
        if self.dry_run:
            return
        self._close_appeals_of_removed_matches()
        delete_ids(Match, match_deletes)
        delete_ids(Standing, standing_deletes)
        Match.objects.bulk_update(match_updates, ["games1", "games2", "draws", "elimination"], batch_size=1000)
        Standing.objects.bulk_update(standing_updates, ["rank", "vp", "gw", "final"], batch_size=1000)
        with loaded_in_bulk(Match, rows=len(new_matches)):
            insert_rows(
                Match,
                ["event", "round", "participant1", "participant2", "games1", "games2", "draws", "elimination"],
                new_matches,
            )
        with loaded_in_bulk(Standing, rows=len(new_standings)):
            insert_rows(Standing, ["event", "participant", "rank", "vp", "gw", "final"], new_standings)
        if self._corrected:
            self._record_corrections(events, rated_organizers)

    # corrections ----------------------------------------------------------

    def _rated_organizers(self, event_codes_by_id) -> dict[int, int | None]:
        """Submitted or rated events among those stored: event id -> organizer's user id."""
        found = {}
        for chunk in _chunks(event_codes_by_id, 500):
            found.update(
                Event.objects.filter(pk__in=chunk).exclude(status=EventStatus.DRAFT).values_list("pk", "organizer_id")
            )
        return found

    def _close_appeals_of_removed_matches(self) -> None:
        removed = [pk for kind, _, _, pk in self._corrected if kind == CorrectionKind.REMOVAL]
        if not removed:
            return
        for chunk in _chunks(removed):
            Appeal.objects.open().filter(match_id__in=chunk).update(
                status=AppealStatus.REJECTED,
                decided_by=self.corrections.by,
                decided_at=timezone.now(),
                decision_reason=f"The match was removed by a re-import of the results ({self.corrections.reason}).",
            )

    def _record_corrections(self, events, rated_organizers) -> None:
        records = {events[code][0]: record for code, record in self.bundle.events.items()}
        added_ids = self._added_match_ids(
            [new for kind, _, new, _ in self._corrected if kind == CorrectionKind.ADDITION]
        )
        reason, by = self.corrections.reason, self.corrections.by
        rows = []
        for kind, old, new, pk in self._corrected:
            match = old or new
            record = records[match.event_id]
            if kind == CorrectionKind.ADDITION:
                pk = added_ids.get((match.event_id, match.round, match.participant1))
            old_games = old.games if old else (None,) * 4
            new_games = new.games if new else (None,) * 4
            rows.append(
                Correction(
                    kind=kind,
                    source=self.corrections.source,
                    match_id=None if kind == CorrectionKind.REMOVAL else pk,
                    event_id=match.event_id,
                    event_name=record.name,
                    event_date=record.date,
                    event_format=record.format,
                    event_team_size=record.team_size,
                    round=match.round,
                    participant1_id=match.participant1,
                    participant2_id=match.participant2,
                    old_games1=old_games[0],
                    old_games2=old_games[1],
                    old_draws=old_games[2],
                    old_elimination=old_games[3],
                    new_games1=new_games[0],
                    new_games2=new_games[1],
                    new_draws=new_games[2],
                    new_elimination=new_games[3],
                    reason=reason,
                    corrected_by_id=by.pk if by is not None else rated_organizers.get(match.event_id),
                )  # fmt: skip
            )
        Correction.objects.bulk_create(rows, batch_size=1000)

    def _added_match_ids(self, added: list[_MatchRow]) -> dict[tuple, int]:
        """(event id, round, participant 1) -> id of each match just inserted (insert_rows returns none)."""
        wanted = {(row.event_id, row.round, row.participant1) for row in added}
        found = {}
        for chunk in _chunks({row.event_id for row in added}, 500):
            rows = Match.objects.filter(event_id__in=chunk, participant1_id__in={key[2] for key in wanted})
            for pk, event_id, round_number, participant1 in rows.values_list(
                "pk", "event_id", "round", "participant1_id"
            ):
                if (event_id, round_number, participant1) in wanted:
                    found[(event_id, round_number, participant1)] = pk
        return found

    def _stored_matches(self, event_codes_by_id) -> dict[int, dict[tuple, tuple]]:
        """event id -> pairing key -> (id, participant1, participant2, games1, games2, draws, elimination)."""
        stored: dict[int, dict[tuple, tuple]] = {}
        for chunk in _chunks(event_codes_by_id, 500):
            rows = Match.objects.filter(event_id__in=chunk).values_list(
                "event_id",
                "round",
                "participant1_id",
                "participant2_id",
                "id",
                "games1",
                "games2",
                "draws",
                "elimination",
            )
            for event_id, rnd, p1, p2, pk, g1, g2, draws, elim in rows.iterator(chunk_size=10000):
                stored.setdefault(event_id, {})[_pairing_key(rnd, p1, p2)] = (pk, p1, p2, g1, g2, draws, elim)
        return stored

    def _stored_standings(self, event_codes_by_id) -> dict[int, dict[int, Standing]]:
        stored: dict[int, dict[int, Standing]] = {}
        for chunk in _chunks(event_codes_by_id, 500):
            for standing in Standing.objects.filter(event_id__in=chunk):
                stored.setdefault(standing.event_id, {})[standing.participant_id] = standing
        return stored

    def _diff_matches(self, rows, stored, new, updates, deletes, *, corrected_event: int | None = None) -> bool:
        """Sort `rows` into new, updated and unchanged matches and stored ones to delete.

        `corrected_event`: the event's id when it is rated already; each change is then kept for the
        correction log.
        """
        corrected = corrected_event is not None
        changed = False
        seen = set()
        for row in rows:
            event_id, rnd, p1, p2, g1, g2, draws, elim = row
            key = _pairing_key(rnd, p1, p2)
            seen.add(key)
            old = stored.get(key)
            if old is None:
                new.append(row)
                changed = True
                if corrected:
                    added = _MatchRow(event_id, rnd, p1, p2, (g1, g2, draws, elim))
                    self._corrected.append((CorrectionKind.ADDITION, None, added, None))
                continue
            pk, stored_p1, stored_p2, *stored_result = old
            if stored_p1 != p1:  # the same pairing written the other way round
                p1, p2, g1, g2 = p2, p1, g2, g1
            if stored_result == [g1, g2, draws, elim]:
                self.report.matches.unchanged += 1
                continue
            if corrected:
                before = _MatchRow(event_id, rnd, p1, p2, tuple(stored_result))
                self._corrected.append(
                    (CorrectionKind.RESULT, before, _MatchRow(event_id, rnd, p1, p2, (g1, g2, draws, elim)), pk)
                )
            updates.append(
                Match(
                    pk=pk,
                    event_id=event_id,
                    round=rnd,
                    participant1_id=p1,
                    participant2_id=p2,
                    games1=g1,
                    games2=g2,
                    draws=draws,
                    elimination=elim,
                )
            )
            changed = True
        for key, (pk, p1, p2, *result) in stored.items():
            if key not in seen:
                deletes.append(pk)
                changed = True
                if corrected:
                    removed = _MatchRow(corrected_event, key[0], p1, p2, tuple(result))
                    self._corrected.append((CorrectionKind.REMOVAL, removed, None, pk))
        return changed

    def _diff_standings(self, rows, stored, new, updates, deletes) -> bool:
        changed = False
        seen = set()
        for row in rows:
            _, participant_id, rank, vp, gw, final = row
            seen.add(participant_id)
            standing = stored.get(participant_id)
            if standing is None:
                new.append(row)
                changed = True
            elif (standing.rank, standing.vp, standing.gw, standing.final) == (rank, vp, gw, final):
                self.report.standings.unchanged += 1
            else:
                standing.rank, standing.vp, standing.gw, standing.final = rank, vp, gw, final
                updates.append(standing)
                changed = True
        for participant_id, standing in stored.items():
            if participant_id not in seen:
                deletes.append(standing.pk)
                changed = True
        return changed

    # what to recompute ----------------------------------------------------

    def affected_categories(self) -> dict[str, date]:
        categories = list(Category.objects.all())
        earliest: dict[str, date] = {}

        def touch(slug, day):
            if slug not in earliest or day < earliest[slug]:
                earliest[slug] = day

        for slug in self.redefined_categories:
            touch(slug, date.min)
        for fmt, team_size, day in self.touched_events:
            for category in categories:
                if (
                    category.ruleset != Ruleset.DERIVED
                    and category.team_size == team_size
                    and fmt in category.format_list
                ):
                    touch(category.slug, day)
        for category in categories:
            if category.ruleset == Ruleset.DERIVED:
                days = [earliest[slug] for slug in category.component_list if slug in earliest]
                if days:
                    touch(category.slug, min(days))
        return earliest


def _pairing_key(round_number, participant1, participant2) -> tuple:
    """A match is its round and its pairing, whichever way round the two are written."""
    if participant2 is None:
        return (round_number, participant1, None)
    return (round_number, min(participant1, participant2), max(participant1, participant2))


def _stored(value):
    """A model field's value as the bundle writes it: countries are objects in the model, codes in the bundle."""
    return value.code if isinstance(value, Country) else value
