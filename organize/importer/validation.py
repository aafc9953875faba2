"""Check every row of a bundle and turn it into typed records, collecting every error on the way.

Nothing here writes. The only database reads are the categories (which
formats are rated) and the players a bundle refers to without listing them.
categories.csv and events.csv are checked in validation_definitions; the
records made are in records.
"""

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from decimal import Decimal, InvalidOperation

from django.db import connections
from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from corrections.models import PlayerMerge
from events.models import FinalPlacing
from lib.lookups import any_of
from lib.timing import Phases
from organize.importer.errors import BundleError, Said
from organize.importer.records import EventRecord, MatchRows, PlayerRecord, RefTable, TeamRecord, ValidBundle
from organize.importer.rows import FileRows
from organize.importer.validation_definitions import DefinitionChecks
from organize.importer.values import HALF_POINTS, MEMBERSHIP_NUMBER, SMALL_COUNTS, SMALL_INT_MAX, parse_count
from players import geography
from players.models import Player
from players.names import name_problem

LOOKUP_CHUNK = 5000


def _database_refused(language: str | None, work: Callable, *args):
    """`work(*args)` on a thread of its own: in `language` (a thread starts in the default one), refusing any
    query, which would go through a connection of its own, outside the caller's transaction."""

    def refused(*_):
        raise RuntimeError("the bundle's checks beside its writing read nothing from the database")

    with translation.override(language), ExitStack() as guards:
        for alias in connections:
            guards.enter_context(connections[alias].execute_wrapper(refused))
        return work(*args)


class BundleValidator(DefinitionChecks):
    def __init__(
        self,
        tables: dict[str, FileRows],
        errors: list[BundleError],
        *,
        only_event: str | None = None,
        phases: Phases | None = None,
    ):
        self.tables = tables
        self.phases = phases or Phases()  # where the checks' time goes, file by file
        self.errors = errors
        self.only_event = only_event  # the one event the results are for (None: the events of events.csv)
        # (file, line, column, number) of players named but not listed in players.csv
        self.unlisted: list[tuple[str, int, str, str]] = []
        self.unregistered: list[str] = []  # of those, the numbers not registered either
        self.team_identity: dict[str, str] = {}  # team id -> the first id with the same members

    def error(self, file: str, line: int, column: str, message: str) -> None:
        self.errors.append(BundleError(file, line, column, message))

    def unknown_event(self, code: str) -> str:
        """Why an event_id is unknown, for the error message."""
        if self.only_event is None:
            return _("unknown event %(event)s: not in events.csv") % {"event": repr(code)}
        return _("unknown event %(event)s: these results are for event %(ref)s only") % {
            "event": repr(code),
            "ref": self.only_event,
        }

    def rows(self, file: str):
        table = self.tables.get(file)
        return table.rows(self.errors) if table else iter(())

    def validate(self) -> ValidBundle:
        return self.validate_results(self.validate_listed())

    def validate_listed(self) -> ValidBundle:
        """The categories, players, teams and events the bundle lists, checked: a bundle whose results are
        not checked yet (validate_results)."""
        lap = self.phases.lap
        categories = self.categories()
        rated_formats = self.rated_formats(categories)
        players = self.players()
        teams = self.teams(players)
        lap("players and teams checked")
        events = self.events(rated_formats)
        lap("events checked")
        return ValidBundle(categories, players, teams, events, {}, {}, set())

    def validate_results(self, bundle: ValidBundle, *, meanwhile: Callable[[], None] | None = None) -> ValidBundle:
        """The bundle's matches and standings checked, then the numbers they use and the events' totals; added
        to `bundle`, which validate_listed made.

        `meanwhile`: database work to do on this thread while the matches and
        standings are checked on another, which reads nothing from the
        database (its Python runs while this thread waits for the database:
        at a million matches, the players' writing takes 2 s of the 3.5 s
        the checks take). Its writes are in the caller's transaction, rolled
        back with the rest when a check fails.
        """
        lap = self.phases.lap
        if meanwhile is None:
            bundle.matches, bundle.standings = self._results_checked(bundle)
            lap("matches and standings checked")
        else:
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bundle-checks") as pool:
                checked = pool.submit(_database_refused, get_language(), self._results_checked, bundle)
                meanwhile()
                bundle.matches, bundle.standings = checked.result()
            lap("matches and standings checked after that")
        bundle.registered_players = self.registered_players()
        self.merged_numbers(bundle.players)
        self.event_totals(bundle.events, bundle.matches, bundle.standings)
        lap("numbers checked")
        return bundle

    def _results_checked(self, bundle: ValidBundle) -> tuple[dict[str, MatchRows], dict[str, list[tuple]]]:
        matches = self.matches(bundle.events, bundle.players, bundle.teams)
        return matches, self.standings(bundle.events, bundle.players, bundle.teams)

    def validate_event(self, event: EventRecord, new_players: Iterable[PlayerRecord] = ()) -> ValidBundle:
        """One event's results, by the same rules, without events.csv or categories.csv.

        `event` stands for the event's row (it is stored already); `new_players`
        count as listed in players.csv (they were registered in a form).
        """
        players = self.players()
        for record in new_players:
            players.setdefault(record.number, record)
        teams = self.teams(players)
        events = {event.code: event}
        matches = self.matches(events, players, teams)
        standings = self.standings(events, players, teams)
        registered = self.registered_players()
        self.merged_numbers(players)
        self.event_totals(events, matches, standings)
        return ValidBundle([], players, teams, events, matches, standings, registered)

    # players.csv and teams.csv -------------------------------------------

    def players(self) -> dict[str, PlayerRecord]:
        file = "players.csv"
        records: dict[str, PlayerRecord] = {}
        for line, (number, name, country, region) in self.rows(file):
            ok = True
            if not MEMBERSHIP_NUMBER.fullmatch(number):
                self.error(
                    file,
                    line,
                    "id",
                    _("%(value)s is not a membership number (1-32 letters, digits, hyphens)") % {"value": repr(number)},
                )
                ok = False
            elif number in records:
                self.error(
                    file,
                    line,
                    "id",
                    _("player %(number)s is already listed on line %(line)s")
                    % {"number": number, "line": records[number].line},
                )
                ok = False
            if not name:
                self.error(file, line, "name", _("a name is required"))
                ok = False
            elif len(name) > 200:
                self.error(file, line, "name", _("the name is longer than 200 characters"))
                ok = False
            elif problem := name_problem(name):
                self.error(file, line, "name", problem)
                ok = False
            country, region = country.upper(), region.upper()
            if country and not geography.is_country(country):
                self.error(
                    file,
                    line,
                    "country",
                    _("%(value)s is not an ISO 3166-1 alpha-2 country code") % {"value": repr(country)},
                )
                ok = False
            if region:
                if not geography.is_region(region):
                    self.error(
                        file,
                        line,
                        "region",
                        _("%(value)s is not an ISO 3166-2 region code such as DE-BY") % {"value": repr(region)},
                    )
                    ok = False
                elif not country:
                    country = region.split("-")[0]
                elif not region.startswith(country + "-"):
                    self.error(
                        file,
                        line,
                        "region",
                        _("region %(region)s is not in country %(country)s") % {"region": region, "country": country},
                    )
                    ok = False
            if ok:
                records[number] = PlayerRecord(line, number, name, country, region)
        return records

    def teams(self, players: dict[str, PlayerRecord]) -> dict[str, TeamRecord]:
        file = "teams.csv"
        records: dict[str, TeamRecord] = {}
        first_ref_of_members: dict[frozenset, str] = {}
        for line, (ref, name, *members) in self.rows(file):
            ok = True
            if not ref or len(ref) > 64:
                self.error(file, line, "id", _("a team id of 1 to 64 characters is required"))
                ok = False
            elif ref in records:
                self.error(
                    file,
                    line,
                    "id",
                    _("team %(team)s is already listed on line %(line)s") % {"team": ref, "line": records[ref].line},
                )
                ok = False
            for position, member in enumerate(members, start=1):
                column = f"member{position}"
                if not member:
                    self.error(file, line, column, _("a member's membership number is required"))
                    ok = False
                elif member in members[: position - 1]:
                    self.error(
                        file, line, column, _("player %(number)s is already a member of this team") % {"number": member}
                    )
                    ok = False
                elif member not in players:
                    self.unlisted.append((file, line, column, member))
            if len(name) > 200:
                self.error(file, line, "name", _("the name is longer than 200 characters"))
                ok = False
            elif problem := name_problem(name):
                self.error(file, line, "name", problem)
                ok = False
            if ok:
                records[ref] = TeamRecord(line, ref, name, tuple(members))
                # Two ids with the same members are one team: check seats by the first id.
                self.team_identity[ref] = first_ref_of_members.setdefault(frozenset(members), ref)
        return records

    # matches.csv and standings.csv -----------------------------------------

    def _identity(self, ref: str) -> str:
        return self.team_identity.get(ref, ref)

    def _participant_ok(self, file, line, column, ref, event, players, teams) -> bool:
        if event.team_size > 1:
            if ref not in teams:
                self.error(
                    file,
                    line,
                    column,
                    _("unknown team %(team)s: team events name teams from teams.csv") % {"team": repr(ref)},
                )
                return False
        elif ref not in players:
            if not MEMBERSHIP_NUMBER.fullmatch(ref):
                self.error(file, line, column, _("%(value)s is not a membership number") % {"value": repr(ref)})
                return False
            self.unlisted.append((file, line, column, ref))
        return True

    def matches(self, events, players, teams):
        file = "matches.csv"
        by_event: dict[str, MatchRows] = {}
        refs = RefTable()
        kept = refs.refs
        identity = self.team_identity.get  # a team's id -> the first id with its members
        # Lookups hoisted out of the loop, which runs once a match (a million times in a large bundle).
        participant_ok = self._participant_ok
        error = self.error
        small = SMALL_COUNTS.get  # most counts in a bundle: a dictionary's answer before parse_count's checks
        for line, values in self.rows(file):
            code, round_text, ref1, ref2, games1_text, games2_text, draws_text, elimination_text = values
            event = events.get(code)
            ok = True
            if event is None:
                error(file, line, "event_id", self.unknown_event(code))
                ok = False
            round_number = small(round_text) or parse_count(round_text, maximum=SMALL_INT_MAX)
            if not round_number:
                error(
                    file, line, "round", _("%(value)s is not a round number (1 or more)") % {"value": repr(round_text)}
                )
                ok = False
            bye = not ref2
            # Whom the event's matches name: a listed player or team is answered by one lookup (most are);
            # participant_ok says what else is.
            known = None if event is None else teams if event.team_size > 1 else players
            if not ref1:
                error(
                    file,
                    line,
                    "player1_id",
                    Said(_("player 1 is required (a bye leaves player2_id blank)"), "player1_required"),
                )
                ok = False
            elif (
                known is not None
                and ref1 not in known
                and not participant_ok(file, line, "player1_id", ref1, event, players, teams)
            ):
                ok = False
            if (
                ref2
                and known is not None
                and ref2 not in known
                and not participant_ok(file, line, "player2_id", ref2, event, players, teams)
            ):
                ok = False
            if ref1 and ref2 and identity(ref1, ref1) == identity(ref2, ref2):
                error(file, line, "player2_id", _("%(player)s cannot play against themselves") % {"player": ref2})
                ok = False
            games1 = small(games1_text)
            if games1 is None:
                games1 = self._games(file, line, "player1_games", games1_text, 0 if bye else None)
            games2 = small(games2_text)
            if games2 is None:
                games2 = self._games(file, line, "player2_games", games2_text, 0 if bye else None)
            draws = small(draws_text)
            if draws is None:
                draws = self._games(file, line, "draws", draws_text, 0)
            if games1 is None or games2 is None or draws is None:
                ok = False
            if elimination_text not in ("", "0", "1"):
                error(file, line, "elimination", _("%(value)s must be 0 or 1") % {"value": repr(elimination_text)})
                ok = False
            elimination = elimination_text == "1"
            if ok and elimination and not bye and games1 == games2:
                error(
                    file,
                    line,
                    "player2_games",
                    _("an elimination-round match cannot be a draw (%(games1)s-%(games2)s); report the winner")
                    % {"games1": games1, "games2": games2},
                )
                ok = False
            if ok:
                rows = by_event.get(code)
                if rows is None:
                    rows = by_event[code] = MatchRows(refs)
                index1, index2 = rows.append(line, round_number, ref1, ref2, games1, games2, draws, elimination)
                event.participants.add(kept[index1])
                if index2:
                    event.participants.add(kept[index2])
        same = [identity(ref, ref) for ref in kept]
        for code, rows in by_event.items():
            self._seats_checked(file, code, rows, same)
        return by_event

    def _games(self, file: str, line: int, column: str, text: str, blank: int | None) -> int | None:
        """A number of games, `blank` when the cell is empty (None: one is required); a problem is an error."""
        number = parse_count(text, maximum=SMALL_INT_MAX) if text else blank
        if number is None:
            self.error(file, line, column, _("%(value)s is not a number of games (0 or more)") % {"value": repr(text)})
        return number

    def _seats_checked(self, file: str, code: str, rows: MatchRows, same: list[str]) -> None:
        """Nobody plays twice in a round of the event. Checked event by event once the file is read, so
        that only one event's seats are held at a time, not every seat of the bundle (20 million at 10
        million matches). `same`: by ref index, who the ref is (a team: the first id with its members)."""
        seats: dict[tuple[int, str], int] = {}  # (round, participant) -> the line that seats them first
        for line, round_number, index1, index2, *_games in rows.packed():
            one, two = same[index1], same[index2]
            if one and (first := seats.setdefault((round_number, one), line)) != line:
                self._plays_twice(file, line, "player1_id", one, round_number, code, first)
            if two and two != one and (first := seats.setdefault((round_number, two), line)) != line:
                self._plays_twice(file, line, "player2_id", two, round_number, code, first)

    def _plays_twice(self, file: str, line: int, column: str, ref: str, round_number: int, code: str, first: int):
        self.error(
            file,
            line,
            column,
            Said(
                _("%(ref)s already plays in round %(round)s of event %(event)s (line %(line)s)")
                % {"ref": ref, "round": round_number, "event": code, "line": first},
                "plays_twice",
                ref=ref,
                round=round_number,
                line=first,
            ),
        )

    def standings(self, events, players, teams):
        file = "standings.csv"
        by_event: dict[str, list[tuple]] = {}
        seen: dict[tuple[str, str], int] = {}
        winners: dict[str, int] = {}
        for line, (code, ref, rank_text, vp_text, gw_text, final) in self.rows(file):
            event = events.get(code)
            ok = True
            if event is None:
                self.error(file, line, "event_id", self.unknown_event(code))
                ok = False
            if not ref:
                self.error(file, line, "player_id", _("a player is required"))
                ok = False
            elif event and not self._participant_ok(file, line, "player_id", ref, event, players, teams):
                ok = False
            elif (code, self._identity(ref)) in seen:
                first = seen[code, self._identity(ref)]
                self.error(
                    file,
                    line,
                    "player_id",
                    Said(
                        _("%(ref)s already has a standing in event %(event)s (line %(line)s)")
                        % {"ref": ref, "event": code, "line": first},
                        "standing_twice",
                        ref=ref,
                        line=first,
                    ),
                )
                ok = False
            else:
                seen[code, self._identity(ref)] = line
            rank = parse_count(rank_text)
            if not rank:
                self.error(file, line, "rank", _("%(value)s is not a rank (1 or more)") % {"value": repr(rank_text)})
                ok = False
            vp = None
            if HALF_POINTS.fullmatch(vp_text or "0"):
                try:
                    vp = Decimal(vp_text or "0")
                except InvalidOperation:
                    vp = None
            if vp is None or (vp * 2) % 1:
                self.error(
                    file,
                    line,
                    "vp",
                    _("%(value)s is not a number of victory points (halves allowed)") % {"value": repr(vp_text)},
                )
                ok = False
            gw = parse_count(gw_text, maximum=SMALL_INT_MAX) if gw_text else 0
            if gw is None:
                self.error(
                    file, line, "gw", _("%(value)s is not a number of game wins (0 or more)") % {"value": repr(gw_text)}
                )
                ok = False
            final = final.lower()
            if final not in FinalPlacing.values:
                self.error(
                    file, line, "final", _("%(value)s must be winner, finalist or blank") % {"value": repr(final)}
                )
                ok = False
            elif final == FinalPlacing.WINNER and code in winners:
                self.error(
                    file,
                    line,
                    "final",
                    Said(
                        _("event %(event)s already has a winner (line %(line)s)")
                        % {"event": code, "line": winners[code]},
                        "winner_twice",
                        line=winners[code],
                    ),
                )
                ok = False
            elif final == FinalPlacing.WINNER:
                winners[code] = line
            if ok:
                by_event.setdefault(code, []).append((line, ref, rank, vp, gw, final))
                event.participants.add(ref)
        return by_event

    # references to players already registered ------------------------------

    def registered_players(self) -> set[str]:
        """Players the bundle names without listing them must already be registered."""
        wanted = sorted({number for _, _, _, number in self.unlisted})
        found = set()
        for start in range(0, len(wanted), LOOKUP_CHUNK):
            chunk = wanted[start : start + LOOKUP_CHUNK]
            found.update(
                Player.objects.filter(any_of("membership_number", chunk)).values_list("membership_number", flat=True)
            )
        for file, line, column, number in self.unlisted:
            if number not in found:
                self.error(
                    file,
                    line,
                    column,
                    Said(
                        _("unknown player %(number)s: not in players.csv and not registered")
                        % {"number": repr(number)},
                        "unknown_player",
                        number=number,
                    ),
                )
        self.unregistered = [number for number in wanted if number not in found]
        return found

    def merged_numbers(self, players: dict[str, PlayerRecord]) -> None:
        """A number given up in a merge (corrections.models.PlayerMerge) is the kept number's person: results
        under it would go to a hidden record, so each use of it is refused with the number to write instead."""
        if not PlayerMerge.objects.exists():  # no number was ever given up: nothing to look up
            return
        uses = [("players.csv", record.line, "id", number) for number, record in players.items()] + self.unlisted
        wanted = sorted({number for *_, number in uses})
        kept = {}
        for start in range(0, len(wanted), LOOKUP_CHUNK):
            chunk = wanted[start : start + LOOKUP_CHUNK]
            kept.update(
                PlayerMerge.objects.filter(any_of("merged_number", chunk)).values_list(
                    "merged_number", "kept__membership_number"
                )
            )
        for file, line, column, number in uses:
            if number in kept:
                self.error(
                    file,
                    line,
                    column,
                    _("player %(number)s was merged into %(kept)s: write %(kept)s")
                    % {"number": number, "kept": kept[number]},
                )

    def event_totals(self, events, matches, standings) -> None:
        file = "events.csv"
        for code, event in events.items():
            if event.format == "vtes" and code not in standings:
                self.error(
                    file,
                    event.line,
                    "format",
                    Said(
                        _("vtes event %(event)s needs its standings in standings.csv") % {"event": code}, "no_standings"
                    ),
                )
            elif code not in matches and code not in standings:
                self.error(
                    file,
                    event.line,
                    "id",
                    Said(
                        _("event %(event)s has no results in matches.csv or standings.csv") % {"event": code},
                        "no_results",
                    ),
                )
            if event.player_count is not None and event.team_size == 1 and event.player_count < len(event.participants):
                self.error(
                    file,
                    event.line,
                    "players",
                    _("%(count)s players, but the results name %(participants)s participants")
                    % {"count": event.player_count, "participants": len(event.participants)},
                )
