"""Compare a valid bundle with the database and write the difference in bulk.

Players are matched by membership number, teams by their member set, events
by id; an event's matches and standings are matched by round and pairing and
by participant. Only what differs is written, so importing the same bundle
twice changes nothing the second time.

Here: categories, players, teams and events, and what the import's changes
affect; matches, standings and the corrections they make are written by
writing_results; the report is report.ImportReport.
"""

from datetime import date
from itertools import count

from django.db import connection
from django.utils import timezone
from django_countries.fields import Country

from events.models import Event, EventStatus, Match, Standing
from events.services import kinds_merge
from lib.bulk import allocate_ids, insert_rows, loaded_in_bulk, statistics_refresh
from lib.lookups import any_of
from lib.timing import Phases
from organize.importer.records import ValidBundle
from organize.importer.report import ImportReport
from organize.importer.writing_results import ImportCorrections, MatchRow, ResultsWriting, lookup_chunks
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


# Above this many numbers, one read of the players table is cheaper than
# building IN lists of thousands (1.6 s for 100,000 numbers).
WHOLE_TABLE_ABOVE = 20_000


def _players_numbered(numbers: set[str]):
    """The stored players whose membership numbers are among `numbers`."""
    # In no order: through a server-side cursor PostgreSQL would walk the players' name index, the model's order.
    players = Player.objects.only("id", "participant_id", "membership_number", "name", "country", "region").order_by()
    if len(numbers) > WHOLE_TABLE_ABOVE:
        return (player for player in players.iterator(chunk_size=10_000) if player.membership_number in numbers)
    return (player for chunk in lookup_chunks(numbers) for player in players.filter(any_of("membership_number", chunk)))


class BundleWriter(ResultsWriting):
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
        phases: Phases | None = None,
    ):
        self.bundle = bundle
        self.phases = phases or Phases()  # where the writes' time goes, table by table
        self.new_players_public = new_players_public
        self.dry_run = dry_run
        self.organizer = organizer
        self.corrections = corrections
        self._corrected: list[tuple[str, MatchRow, MatchRow | None, int | None]] = []  # kind, old/added, new, pk
        self.report = ImportReport(dry_run=dry_run)
        self._placeholder_ids = count(-1, -1)  # dry run: ids for rows that would be created
        self.touched_events: list[tuple[str, int, date]] = []  # (format, team size, date) whose ratings change
        self.redefined_categories: set[str] = set()  # recomputed whole
        self._listed_player_ids: dict[str, tuple[int, int]] | None = None  # by write_listed

    def write_listed(self) -> None:
        """The categories and the players the bundle lists: what a check of its results does not change, so
        they can be written while the results are checked (organize.importer.results_import)."""
        self.write_categories()
        self._listed_player_ids = self.write_listed_players()
        if not self.dry_run:
            # Their statistics now, while the results are still being checked, not on the way to the commit
            # (0.17 s of a first import of 100,000 players).
            players = self.report.players
            statistics_refresh({Player: players.created + players.updated, Participant: players.created})
        self.phases.lap("players written")

    def write(self) -> ImportReport:
        lap = self.phases.lap
        if self._listed_player_ids is None:
            self.write_listed()
        player_ids = self._listed_player_ids | self.registered_player_ids()
        team_ids = self.write_teams(player_ids)
        events = self.write_events()
        lap("teams and events written")
        self.write_results(events, player_ids, team_ids)
        lap("matches and standings written")
        if not self.dry_run:
            statistics_refresh(self._bulk_written())
            lap("statistics taken")
        self.report.affected = self.affected_categories()
        self.report.kinds = self.changed_kinds()
        self.report.phases = self.phases
        return self.report

    def _bulk_written(self) -> dict:
        """Rows written per table this import wrote to in bulk since the players (model -> rows): those of the
        players and their participants had their statistics taken when written (write_listed)."""
        report = self.report
        written = {Team: report.teams, Event: report.events, Match: report.matches, Standing: report.standings}
        rows = {model: tally.created + tally.updated + tally.deleted for model, tally in written.items()}
        rows[Participant] = report.teams.created
        return rows

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
        return self.write_listed_players() | self.registered_player_ids()

    def write_listed_players(self) -> dict[str, tuple[int, int]]:
        """Membership number -> (player id, participant id) for every player players.csv lists."""
        tally = self.report.players
        records = self.bundle.players
        ids: dict[str, tuple[int, int]] = {}
        changed = []
        for player in _players_numbered(set(records)):
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

    def registered_player_ids(self) -> dict[str, tuple[int, int]]:
        """Membership number -> (player id, participant id) for the registered players the results name
        without listing them."""
        unlisted = self.bundle.registered_players - self.bundle.players.keys()
        return {player.membership_number: (player.pk, player.participant_id) for player in _players_numbered(unlisted)}

    def write_teams(self, player_ids) -> dict[str, int]:
        """Bundle team id -> participant id."""
        tally = self.report.teams
        keys = {ref: team_member_key(record.members) for ref, record in self.bundle.teams.items()}
        existing: dict[str, Team] = {}
        for chunk in lookup_chunks(set(keys.values())):
            existing.update((team.member_key, team) for team in Team.objects.filter(any_of("member_key", chunk)))
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
            # By COPY, with ids reserved: a large bundle's thousands of teams and their members.
            team_pks = allocate_ids(Team, len(new))
            insert_rows(
                Team,
                ["id", "participant", "name", "member_key"],
                (
                    (pk, participant_ids[key], record.name, key)
                    for pk, (key, record) in zip(team_pks, new.items(), strict=True)
                ),
            )
            insert_rows(
                Team.members.through,
                ["team", "player"],
                (
                    (pk, player_ids[member][0])
                    for pk, record in zip(team_pks, new.values(), strict=True)
                    for member in record.members
                ),
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
        for chunk in lookup_chunks(records):
            existing.update((event.code, event) for event in Event.objects.filter(any_of("code", chunk)))
        result: dict[str, tuple[int, bool]] = {}
        changed_events, changed_fields = [], set()
        new = []
        for code, record in records.items():
            values = self._event_values(record)
            event = existing.get(code)
            if event is None:
                new.append((code, values))
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
            for code, _values in new:
                result[code] = (next(self._placeholder_ids), False)
        else:
            # Ids in file order, so that they follow the order the events were recorded in.
            ids = allocate_ids(Event, len(new))
            # The time as the field stores it (SQLite: UTC text without an offset, as the ORM writes it).
            created_at = Event._meta.get_field("created_at").get_db_prep_save(timezone.now(), connection)
            stored_as = (getattr(self.organizer, "pk", None), EventStatus.SUBMITTED, created_at)
            insert_rows(
                Event,
                ["id", "code", *EVENT_FIELDS, "organizer", "status", "created_at"],
                (
                    (pk, code, *(values[name] for name in EVENT_FIELDS), *stored_as)
                    for pk, (code, values) in zip(ids, new, strict=True)
                ),
            )
            result.update((code, (pk, False)) for pk, (code, _values) in zip(ids, new, strict=True))
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

    # what to recompute ----------------------------------------------------

    def changed_kinds(self) -> dict[tuple[str, int], date]:
        """(format, team size) -> the earliest date of the events whose ratings the import changes."""
        return kinds_merge(*({(fmt, team_size): day} for fmt, team_size, day in self.touched_events))

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


def _stored(value):
    """A model field's value as the bundle writes it: countries are objects in the model, codes in the bundle."""
    return value.code if isinstance(value, Country) else value
