"""Writing an event's matches and standings: compared with the stored ones by round and pairing and by
participant, only what differs written; changes to events already rated recorded as corrections (SPEC 5).

A mixin of BundleWriter (writing.py), which writes the players, teams and events first.
"""

from dataclasses import dataclass
from itertools import chain

from django.utils import timezone

from corrections.models import Appeal, AppealStatus, Correction, CorrectionKind, CorrectionSource
from events.models import Event, EventStatus, Match, Standing
from lib.bulk import chunked, delete_ids, insert_rows, loaded_in_bulk
from organize.importer.validation import LOOKUP_CHUNK


def lookup_chunks(items, size=LOOKUP_CHUNK):
    return chunked(items, size)


@dataclass
class ImportCorrections:
    """Record changed results of events already rated as corrections: by whom (None: each event's
    organizer) and why. A re-import fixing a misreported match is a correction like any other."""

    reason: str
    by: object = None
    source: str = CorrectionSource.IMPORT


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match as the importer compares it, participant 1's games first."""

    event_id: int
    round: int
    participant1: int
    participant2: int | None
    games: tuple  # (games1, games2, draws, elimination)


class ResultsWriting:
    """Matches and standings, and the corrections their changes make (BundleWriter's bundle, report, dry_run,
    corrections and touched_events)."""

    # matches and standings -----------------------------------------------

    def write_results(self, events, player_ids, team_ids) -> None:
        def participant(event_record, ref: str) -> int | None:
            if not ref:
                return None
            return team_ids[ref] if event_record.team_size > 1 else player_ids[ref][1]

        # The participant id of each ref the matches name, by its index in their ref table: for team events and
        # for the others (a team's id may be written like a membership number).
        refs = next((rows.refs.refs for rows in self.bundle.matches.values()), [""])
        match_ids = {
            True: [team_ids.get(ref) for ref in refs],
            False: [player_ids[ref][1] if ref in player_ids else None for ref in refs],
        }

        # Results of stored events that the bundle adds (the diff finds them); those of new events are not
        # gathered but streamed into the COPY below: at ten million matches a list of them took 1.6 GB.
        new_matches, new_standings = [], []
        new_events = []  # (event id, record, code) of the events created by this import
        existing_event_ids = {event_id: code for code, (event_id, existed) in events.items() if existed}
        # Events already rated whose match changes are corrections: event id -> its organizer's id.
        rated_organizers = self._rated_organizers(existing_event_ids) if self.corrections else {}
        stored_matches = self._stored_matches(existing_event_ids)
        stored_standings = self._stored_standings(existing_event_ids)
        match_updates, match_deletes, standing_updates, standing_deletes = [], [], [], []

        for code, record in self.bundle.events.items():
            event_id, existed = events[code]
            if not existed:
                new_events.append((event_id, record, code))
                continue
            matches = list(self._match_rows(match_ids, event_id, record, code))
            standings = list(self._standing_rows(participant, event_id, record, code))
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

        matches_added = len(new_matches) + sum(len(self.bundle.matches.get(code, ())) for _, _, code in new_events)
        standings_added = len(new_standings) + sum(
            len(self.bundle.standings.get(code, ())) for _, _, code in new_events
        )
        self.report.matches.created += matches_added
        self.report.matches.updated += len(match_updates)
        self.report.matches.deleted += len(match_deletes)
        self.report.standings.created += standings_added
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
        with loaded_in_bulk(Match, rows=matches_added):
            insert_rows(
                Match,
                ["event", "round", "participant1", "participant2", "games1", "games2", "draws", "elimination"],
                chain(new_matches, *(self._match_rows(match_ids, *event) for event in new_events)),
            )
        with loaded_in_bulk(Standing, rows=standings_added):
            insert_rows(
                Standing,
                ["event", "participant", "rank", "vp", "gw", "final"],
                chain(new_standings, *(self._standing_rows(participant, *event) for event in new_events)),
            )
        if self._corrected:
            self._record_corrections(events, rated_organizers)

    def _match_rows(self, match_ids: dict[bool, list], event_id: int, record, code: str):
        """The event's matches as rows of the match table, one at a time (`match_ids`: write_results')."""
        rows = self.bundle.matches.get(code)
        return rows.rows_mapped(event_id, match_ids[record.team_size > 1]) if rows else iter(())

    def _standing_rows(self, participant, event_id: int, record, code: str):
        for _, ref, rank, vp, gw, final in self.bundle.standings.get(code, ()):
            yield (event_id, participant(record, ref), rank, vp, gw, final)

    # corrections ----------------------------------------------------------

    def _rated_organizers(self, event_codes_by_id) -> dict[int, int | None]:
        """Submitted or rated events among those stored: event id -> organizer's user id."""
        found = {}
        for chunk in lookup_chunks(event_codes_by_id, 500):
            found.update(
                Event.objects.filter(pk__in=chunk).exclude(status=EventStatus.DRAFT).values_list("pk", "organizer_id")
            )
        return found

    def _close_appeals_of_removed_matches(self) -> None:
        removed = [pk for kind, _, _, pk in self._corrected if kind == CorrectionKind.REMOVAL]
        if not removed:
            return
        for chunk in lookup_chunks(removed):
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

    def _added_match_ids(self, added: list[MatchRow]) -> dict[tuple, int]:
        """(event id, round, participant 1) -> id of each match just inserted (insert_rows returns none)."""
        wanted = {(row.event_id, row.round, row.participant1) for row in added}
        found = {}
        for chunk in lookup_chunks({row.event_id for row in added}, 500):
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
        for chunk in lookup_chunks(event_codes_by_id, 500):
            rows = (
                Match.objects.filter(event_id__in=chunk)
                .order_by()
                .values_list(
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
            )
            for event_id, rnd, p1, p2, pk, g1, g2, draws, elim in rows.iterator(chunk_size=10000):
                stored.setdefault(event_id, {})[_pairing_key(rnd, p1, p2)] = (pk, p1, p2, g1, g2, draws, elim)
        return stored

    def _stored_standings(self, event_codes_by_id) -> dict[int, dict[int, Standing]]:
        stored: dict[int, dict[int, Standing]] = {}
        for chunk in lookup_chunks(event_codes_by_id, 500):
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
                    added = MatchRow(event_id, rnd, p1, p2, (g1, g2, draws, elim))
                    self._corrected.append((CorrectionKind.ADDITION, None, added, None))
                continue
            pk, stored_p1, stored_p2, *stored_result = old
            if stored_p1 != p1:  # the same pairing written the other way round
                p1, p2, g1, g2 = p2, p1, g2, g1
            if stored_result == [g1, g2, draws, elim]:
                self.report.matches.unchanged += 1
                continue
            if corrected:
                before = MatchRow(event_id, rnd, p1, p2, tuple(stored_result))
                self._corrected.append(
                    (CorrectionKind.RESULT, before, MatchRow(event_id, rnd, p1, p2, (g1, g2, draws, elim)), pk)
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
                    removed = MatchRow(corrected_event, key[0], p1, p2, tuple(result))
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


def _pairing_key(round_number, participant1, participant2) -> tuple:
    """A match is its round and its pairing, whichever way round the two are written."""
    if participant2 is None:
        return (round_number, participant1, None)
    return (round_number, min(participant1, participant2), max(participant1, participant2))
