"""An event's results as rows of the importer's files, whichever way the organizer gives them.

Uploads arrive as files and are read by the importer's CSV reader. Round and
standings forms, and the results stored so far, are given to the same
validator (organize.importer.event_results) as rows: values by the importer's
column names, each with its origin (the form row it was typed in, or how the
page names a stored row), so that its problems are shown there. Nothing is
written as CSV to be parsed back.
"""

from django.utils.translation import gettext as _

from events.models import Event, Match, Standing
from organize.importer.errors import Origin
from organize.importer.event_results import event_ref
from organize.importer.rows import Row
from players.links import participant_entity
from players.models import Team


def _team_ref(team: Team) -> str:
    return f"T{team.participant_id}"


def _text(value) -> str:
    """A value as the check reads it: text, with each run of spaces or line breaks typed in it as one space."""
    return " ".join(str(value).split())


def _row(values: dict, origin: Origin | None = None) -> Row:
    """A row of given values; without an origin its problems are shown by file and line."""
    return Row({column: _text(value) for column, value in values.items()}, origin or Origin())


def stored_results_rows(event: Event) -> dict[str, list[dict]]:
    """The event's stored matches and standings (and its teams) as values of the importer's files' rows."""
    ref = event_ref(event)
    matches = (
        Match.objects.filter(event=event)
        .select_related("participant1__player", "participant1__team", "participant2__player", "participant2__team")
        .order_by("round", "id")
    )
    standings = Standing.objects.filter(event=event).select_related("participant__player", "participant__team")
    teams: dict[str, Team] = {}

    def name(participant) -> str:
        entity = participant_entity(participant)
        if entity is None:
            return ""
        if isinstance(entity, Team):
            teams[_team_ref(entity)] = entity
            return _team_ref(entity)
        return entity.membership_number

    rows = {
        "matches.csv": [
            {
                "event_id": ref,
                "round": match.round,
                "player1_id": name(match.participant1),
                "player2_id": name(match.participant2),
                "player1_games": match.games1,
                "player2_games": match.games2,
                "draws": match.draws,
                "elimination": int(match.elimination),
            }
            for match in matches
        ],
        "standings.csv": [
            {
                "event_id": ref,
                "player_id": name(standing.participant),
                "rank": standing.rank,
                "vp": f"{standing.vp.normalize():f}",
                "gw": standing.gw,
                "final": standing.final,
            }
            for standing in standings.order_by("rank", "participant_id")
        ],
        "teams.csv": [],
    }
    for ref_, team in teams.items():
        members = sorted(team.members.values_list("membership_number", flat=True))
        rows["teams.csv"].append(
            {"id": ref_, "name": team.name, **{f"member{n}": member for n, member in enumerate(members, start=1)}}
        )
    return rows


def _match_label(values: dict) -> str:
    """How the page names a stored match: by its round and pairing."""
    if values["player2_id"]:
        return _("Round %(round)s, %(player1)s vs %(player2)s") % {
            "round": values["round"],
            "player1": values["player1_id"],
            "player2": values["player2_id"],
        }
    return _("Round %(round)s, %(player1)s vs bye") % {"round": values["round"], "player1": values["player1_id"]}


def stored_results(event: Event) -> dict[str, list[Row]]:
    """The stored results as rows, for checking them again against the event's current details; each named as
    the organizer knows it (by round and pairing, by standing) rather than by a line of a file nobody sent."""
    stored = stored_results_rows(event)
    return {
        "matches.csv": [_row(values, Origin(label=_match_label(values))) for values in stored["matches.csv"]],
        "standings.csv": [
            _row(values, Origin(label=_("Standing of %(player)s") % {"player": values["player_id"]}))
            for values in stored["standings.csv"]
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
