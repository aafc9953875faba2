"""The event list and event pages."""

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy, pgettext_lazy

from corrections.selectors import match_corrections
from events import selectors
from events.models import VeknLevel
from lib.tables import EVENT_PLAYERS_PER_PAGE, configure
from organize import selectors as organize_selectors
from players.links import ParticipantLinks
from players.selectors import participant_names
from public.event_filters import EventFilter
from public.event_tables import ComputedStandingTable, EventTable, RatingChangeTable, StandingTable, match_item
from ratings.models import Ruleset
from ratings.selectors import events as event_ratings

EVENTS_PER_PAGE = 50
# Events with more matches than this show their matches one round at a time,
ALL_ROUNDS_UP_TO = 300
# and a round with more than this a page of its matches at a time (a 900-player event's round has 450).
MATCHES_PER_PAGE = 100

# A V:EKN level inside a sentence ("(12 players, national championship)"): lower case in English, not in German.
LEVEL_IN_SENTENCE = {
    VeknLevel.NATIONAL: pgettext_lazy("a V:EKN level inside a sentence", "national championship"),
    VeknLevel.CONTINENTAL_QUALIFIER: pgettext_lazy(
        "a V:EKN level inside a sentence", "continental championship qualifier"
    ),
    VeknLevel.CONTINENTAL: pgettext_lazy("a V:EKN level inside a sentence", "continental championship"),
}


def event_list(request):
    filterset = EventFilter(request.GET or None, queryset=selectors.event_list())
    events = selectors.CountedEvents(filterset.qs, filters=_filters_key(filterset))
    table = configure(request, EventTable(events), per_page=EVENTS_PER_PAGE)
    table.winners = selectors.events_winner_names(event_ids=[row.record.pk for row in table.page.object_list])
    return render(request, "events/event_list.html", {"filter": filterset, "table": table})


def _filters_key(filterset: EventFilter) -> str:
    """The filters as they narrow the list: the values that passed their checks (those that did not filter
    nothing, as django-filter leaves them out)."""
    if not filterset.is_bound:
        return ""
    filterset.form.is_valid()
    return repr(sorted((name, str(value)) for name, value in filterset.form.cleaned_data.items() if value))


def event_detail(request, event_id):
    event = organize_selectors.event_for_viewer(user=request.user, event_id=event_id)
    categories = event_ratings.event_categories(event=event)
    rounds = selectors.event_rounds(event=event)
    one_round = _round_shown(request, rounds)
    changes = event_ratings.event_rating_changes(event=event, categories=categories)
    standings = selectors.event_standings(event=event)
    scores = event_ratings.event_scores(event=event, categories=categories)
    # Uploaded standings take precedence (SPEC 5b); without them the standings are computed from the matches.
    computed = [] if standings else selectors.event_computed_standings(event=event)

    change_tables = [(each.category, _change_table(request, each, teams=event.team_size > 1)) for each in changes]
    pager = _matches_pager(request, rounds, one_round)
    offset, limit = (pager.page.start_index() - 1, MATCHES_PER_PAGE) if pager else (0, None)
    matches = selectors.event_matches(event=event, round=one_round, offset=offset, limit=limit)
    # The sides are named from the rating changes' participants, read already; only the others are read.
    names = {row.participant.pk: row.participant for each in changes for row in each.rows}
    names |= participant_names(
        participant_ids=(_sides(matches) | {placing.participant for placing in computed}) - names.keys()
    )
    if standings:
        standings_table = _standings_table(request, standings, scores, categories)
        winners = [standing.participant for standing in standings if standing.rank == 1]
    else:
        standings_table = _computed_standings_table(request, computed, names, teams=event.team_size > 1)
        winners = [names[placing.participant] for placing in computed if placing.place == 1]
    any_score = next(iter(scores.values()), None)  # N and the coefficient are the same for everyone
    return render(
        request,
        "events/event_detail.html",
        {
            "event": event,
            "categories": categories,
            "elo_categories": [each.category for each in changes],
            "standings_table": standings_table,
            "standings_computed": bool(computed),
            "winners": winners,
            "change_tables": change_tables,
            "rounds": rounds,
            "one_round": one_round,
            "all_rounds_allowed": _all_rounds_allowed(rounds),
            "matches_pager": pager,
            # Each match shows its sides' changes in the first category rating the event.
            "change_category": changes[0].category if changes else None,
            "rounds_with_matches": _by_round(rounds, matches, names, changes[0].by_match if changes else {}),
            "sections": bool(standings_table) + len(change_tables) + bool(rounds),
            "vekn_coefficient": any_score.coefficient if any_score else None,
            "vekn_players": any_score.players if any_score else None,
            "level_in_sentence": LEVEL_IN_SENTENCE.get(event.level, ""),
        },
    )


def _standings_table(request, standings, scores, categories):
    if not standings:
        return None
    vekn = next((category for category in categories if category.ruleset == Ruleset.VEKN), None)
    table = StandingTable(
        standings, scores=scores, rounding=vekn.display_rounding if vekn else "round", prefix="standings-"
    )
    return configure(request, table, per_page=EVENT_PLAYERS_PER_PAGE)


def _computed_standings_table(request, placings, names, *, teams: bool):
    if not placings:
        return None
    table = ComputedStandingTable(placings, names=names, team=teams, prefix="standings-")
    return configure(request, table, per_page=EVENT_PLAYERS_PER_PAGE)


def _change_table(request, changes, *, teams: bool):
    slug = changes.category.slug
    table = RatingChangeTable(
        changes.rows, rounding=changes.category.display_rounding, team=teams, prefix=f"{slug}-", order_by=("-change",)
    )
    table.anchor = f"ratings-{slug}"
    return configure(request, table, per_page=EVENT_PLAYERS_PER_PAGE)


def _round_shown(request, rounds) -> int | None:
    """The round asked for (?round=N); None for every round, which only a small event shows at once."""
    numbers = [each.number for each in rounds]
    asked = request.GET.get("round", "")
    if asked.isdigit() and int(asked) in numbers:
        return int(asked)
    if _all_rounds_allowed(rounds):
        return None
    return numbers[0] if numbers else None


@dataclass(frozen=True)
class MatchesPager:
    """A page of a big round's matches, as the site's pager (templates/_pager.html) reads a table's."""

    page: Page
    prefixed_page_field: str = "matches-page"
    anchor: str = "matches"
    pager_label = gettext_lazy("Pages of the round's matches")

    @property
    def paginator(self) -> Paginator:
        return self.page.paginator


def _matches_pager(request, rounds, one_round: int | None) -> MatchesPager | None:
    """The page of the round's matches asked for (?matches-page=N), when the round has more than a page; a page
    number that is not one gives the first page, one past the end the last (Paginator.get_page)."""
    count = next((each.matches for each in rounds if each.number == one_round), 0)
    if count <= MATCHES_PER_PAGE:
        return None
    page = Paginator(range(count), MATCHES_PER_PAGE).get_page(request.GET.get(MatchesPager.prefixed_page_field))
    return MatchesPager(page)


def _all_rounds_allowed(rounds) -> bool:
    return sum(each.matches for each in rounds) <= ALL_ROUNDS_UP_TO


def _sides(matches) -> set[int]:
    return {side for match in matches for side in (match.participant1_id, match.participant2_id) if side is not None}


def _by_round(rounds, matches, names, match_changes) -> list[tuple]:
    """(round, its matches as HTML) for each round shown, corrected matches marked."""
    corrections = match_corrections(match_ids=[match.pk for match in matches])
    links = ParticipantLinks()
    by_round: dict[int, list[str]] = {}
    for match in matches:
        by_round.setdefault(match.round, []).append(
            match_item(
                match,
                side1=names[match.participant1_id],
                side2=names.get(match.participant2_id),
                change1=match_changes.get((match.pk, match.participant1_id)),
                change2=match_changes.get((match.pk, match.participant2_id)),
                corrections=corrections.get(match.pk, []),
                links=links,
            )
        )
    # Each round's matches joined here: a template loop over a big round's hundreds of items costs more.
    return [(each, mark_safe("\n".join(by_round[each.number]))) for each in rounds if each.number in by_round]
