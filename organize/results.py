"""An event's results as rows of the importer's files, whichever way the organizer gives them.

Uploads arrive as files and are read by the importer's CSV reader. Round and
standings forms, and the results stored so far, are given to the same
validator (organize.importer.event_results) as rows: values by the importer's
column names, each with its origin (the form row it was typed in, or how the
page names a stored row), so that its problems are shown there. Nothing is
written as CSV to be parsed back.
"""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from events.models import Event, Standing
from events.selectors import MatchRow, event_matches
from organize.importer.errors import Origin
from organize.importer.event_results import event_ref
from organize.importer.rows import Row
from players.models import Participant, Team
from players.selectors import participant_names


def _row(values: dict, origin: Origin | None = None) -> Row:
    """A row of given values, each as the check reads it: text, with each run of spaces or line breaks typed in
    it as one space (a stored count as it is: an event's 3,700 matches have 15,000). Without an origin, the
    row's problems are shown by file and line."""
    return Row(
        {
            column: str(value) if type(value) is int else " ".join(str(value).split())
            for column, value in values.items()
        },
        origin or Origin(),
    )


def _names_in_files(participant_ids: set[int]) -> dict[int, tuple[str, bool]]:
    """participant id -> how the files name them (a player by their membership number, a team as T<its
    participant id>; "" for neither), and whether a team."""
    named = participant_names(participant_ids=participant_ids)
    return {
        pk: (f"T{pk}", True)
        if each.kind == Participant.Kind.TEAM and each.member_key
        else (each.membership_number, False)
        for pk, each in named.items()
    }


@dataclass(frozen=True)
class StoredResults:
    """An event's stored matches and standings as read, before they are written out as the files' rows: what
    the rows are made of, and all they are made of (organize.problems digests it to know them unchanged)."""

    ref: str  # the event as the files name it
    matches: list[MatchRow]
    standings: list[tuple]  # (rank, vp, gw, final, participant id)
    named: dict[int, tuple[str, bool]]  # participant id -> how the files name them, and whether a team
    teams: dict[int, tuple[str, list[str]]]  # a team's participant id -> its name and its members' numbers

    def rows(self) -> dict[str, list[dict]]:
        """The results as values of the importer's files' rows (stored_results_rows)."""
        ref, named = self.ref, self.named
        teams: list[int] = []  # the teams named, in the order they come

        def name(participant_id: int | None) -> str:
            """The participant as the files name them; "" for no one (a bye)."""
            if participant_id is None:
                return ""
            text, team = named.get(participant_id, ("", False))
            if team:
                teams.append(participant_id)
            return text

        rows = {
            "matches.csv": [
                {
                    "event_id": ref,
                    "round": match.round,
                    "player1_id": name(match.participant1_id),
                    "player2_id": name(match.participant2_id),
                    "player1_games": match.games1,
                    "player2_games": match.games2,
                    "draws": match.draws,
                    "elimination": int(match.elimination),
                }
                for match in self.matches
            ],
            "standings.csv": [
                {
                    "event_id": ref,
                    "player_id": name(side),
                    "rank": rank,
                    "vp": f"{vp.normalize():f}",
                    "gw": gw,
                    "final": final,
                }
                for (rank, vp, gw, final, side) in self.standings
            ],
            "teams.csv": [],
        }
        for team in dict.fromkeys(teams):
            team_name, numbers = self.teams[team]
            rows["teams.csv"].append(
                {"id": f"T{team}", "name": team_name, **{f"member{n}": number for n, number in enumerate(numbers, 1)}}
            )
        return rows


def stored_results_read(event: Event, matches: list[MatchRow] | None = None) -> StoredResults:
    """The event's stored matches and standings (and its teams), with how the files name their sides.

    Read as values, their sides by id, named from the event's participants read once: at 3,700 matches, the
    matches joined with their sides' players and teams took 58 ms of the database, with their sides' models
    half a second to build. `matches`: event_matches(event=event), when the caller has read them."""
    matches = event_matches(event=event) if matches is None else matches
    standings = list(
        Standing.objects.filter(event=event)
        .order_by("rank", "participant_id")
        .values_list("rank", "vp", "gw", "final", "participant_id")
    )
    named = _names_in_files(
        {side for match in matches for side in (match.participant1_id, match.participant2_id) if side is not None}
        | {row[4] for row in standings}
    )
    teams: dict[int, tuple[str, list[str]]] = {}
    team_ids = {participant for participant, (_, team) in named.items() if team}
    if team_ids:
        team_names = dict(Team.objects.filter(participant_id__in=team_ids).values_list("participant_id", "name"))
        members: dict[int, list[str]] = {team: [] for team in team_names}
        for team, number in Team.members.through.objects.filter(team__participant_id__in=team_names).values_list(
            "team__participant_id", "player__membership_number"
        ):
            members[team].append(number)
        teams = {team: (team_names[team], sorted(members[team])) for team in team_names}
    return StoredResults(event_ref(event), matches, standings, named, teams)


def stored_results_rows(event: Event) -> dict[str, list[dict]]:
    """The event's stored matches and standings (and its teams) as values of the importer's files' rows."""
    return stored_results_read(event).rows()


def stored_results(event: Event, stored: dict[str, list[dict]] | None = None) -> dict[str, list[Row]]:
    """The stored results as rows, for checking them again against the event's current details; each named as
    the organizer knows it (by round and pairing, by standing) rather than by a line of a file nobody sent.
    `stored`: stored_results_rows(event), when the caller has read them."""
    stored = stored_results_rows(event) if stored is None else stored
    # Translated once, not once a row: a big event's 3,700 labels.
    paired = _("Round %(round)s, %(player1)s vs %(player2)s")
    bye = _("Round %(round)s, %(player1)s vs bye")
    standing = _("Standing of %(player)s")

    def match_label(values: dict) -> str:
        """How the page names a stored match: by its round and pairing."""
        if values["player2_id"]:
            return paired % {"round": values["round"], "player1": values["player1_id"], "player2": values["player2_id"]}
        return bye % {"round": values["round"], "player1": values["player1_id"]}

    return {
        "matches.csv": [_row(values, Origin(label=match_label(values))) for values in stored["matches.csv"]],
        "standings.csv": [
            _row(values, Origin(label=standing % {"player": values["player_id"]})) for values in stored["standings.csv"]
        ],
        "teams.csv": [_row(values) for values in stored["teams.csv"]],
    }


def round_results(event: Event, *, round_number: int, typed: list[Row], elimination: bool) -> dict[str, list[Row]]:
    """The event's results with round `round_number` replaced by the rows `typed` in its form.

    Earlier rounds come first, then this one, then later ones: the rows follow
    the rounds, as they would in a file. Problems of the other rounds' rows
    are shown by their round.
    """
    stored = stored_results_rows(event)
    kept = [values for values in stored["matches.csv"] if values["round"] != round_number]
    ref = event_ref(event)

    def other_round(values: dict) -> Row:
        return _row(values, Origin(label=_("round %(number)s") % {"number": values["round"]}))

    matches = [other_round(values) for values in kept if values["round"] < round_number]
    for row in typed:
        values = {**row.values, "event_id": ref, "round": round_number, "elimination": "1" if elimination else "0"}
        matches.append(_row(values, row.origin))
    matches += [other_round(values) for values in kept if values["round"] > round_number]
    results = {"matches.csv": matches}
    for file in ("standings.csv", "teams.csv"):
        if stored[file]:
            results[file] = [_row(values) for values in stored[file]]
    return results


def standings_results(event: Event, *, typed: list[Row]) -> dict[str, list[Row]]:
    """The event's results with the standings replaced by the rows `typed` in the standings form."""
    stored = stored_results_rows(event)
    ref = event_ref(event)
    results = {"standings.csv": [_row({**row.values, "event_id": ref}, row.origin) for row in typed]}
    for file in ("matches.csv", "teams.csv"):
        if stored[file]:
            results[file] = [_row(values) for values in stored[file]]
    return results
