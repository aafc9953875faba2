"""Player search, player and team pages, head-to-head."""

from datetime import date

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _

from corrections.selectors import appeal_marks, match_corrections, merged_into, user_plays_as
from lib.tables import configure
from players import selectors
from players.formatting import listed
from players.links import player_url
from players.models import Player
from players.search import suggested_number
from public.conditional import player_state, public_page_cached, team_state
from public.player_tables import HeadToHeadTable, PlayerTable, RatingHistoryTable, VeknScoreTable
from ratings.formatting import rating_shown
from ratings.selectors import head_to_head, vekn
from ratings.selectors import players as ratings_of_players

HISTORY_PER_PAGE = 25
PLAYERS_PER_PAGE = 50
VERSUS_PER_PAGE = 50


def player_list(request):
    query = request.GET.get("q", "").strip()
    if query and (player := selectors.player_by_number(number=suggested_number(query))):
        return redirect(player_url(player))
    matches = selectors.player_matches(query=query)
    table = PlayerTable(selectors.player_matches_counted(matches, query=query))
    configure(request, table, per_page=PLAYERS_PER_PAGE)
    table.ratings = ratings_of_players.current_ratings_by_participant(
        participant_ids=[row.record.participant_id for row in table.page.object_list]
    )
    return render(request, "players/player_list.html", {"query": query, "table": table, "near": matches.near})


SUGGESTIONS = 8


def player_suggestions(request):
    """Names for a search box as it is typed: JSON [{name, number, country}], the search's first few."""
    query = request.GET.get("q", "").strip()[:100]
    players = selectors.player_search(query=query)[:SUGGESTIONS] if len(query) >= 2 else []
    rows = [{"name": each.name, "number": each.membership_number, "country": each.country.code} for each in players]
    response = JsonResponse(rows, safe=False)
    response["Cache-Control"] = "public, max-age=300"
    return response


@public_page_cached(player_state)
def player_detail(request, number):
    player = Player.objects.public().filter(membership_number=number).first()
    if player is None:
        kept = merged_into(number=number)  # a number given up in a merge: its person's page now
        if kept is None:
            raise Http404(f"No player has the membership number {number!r}.")
        return redirect("players:detail", number=kept.membership_number, permanent=True)
    context = _participant_context(request, player.participant_id)
    context.update(
        player=player,
        teams=selectors.player_teams(player=player),
        suspension=selectors.player_suspension(player=player, on=timezone.localdate()),
    )
    return render(request, "players/player_detail.html", context)


@public_page_cached(team_state)
def team_detail(request, participant_id):
    team = head_to_head.team_by_participant(participant_id=participant_id)
    if team is None:
        raise Http404("No such team.")
    context = _participant_context(request, team.participant_id)
    context["team"] = team
    return render(request, "players/team_detail.html", context)


VERSUS_CHOICES = 20


def player_versus_pick(request, number):
    """The head-to-head form on a player page: an opponent by name (any spelling) or number, then their page.

    One player found goes straight to the shared page; several are listed to pick from.
    """
    player = get_object_or_404(Player.objects.public(), membership_number=number)
    asked = request.GET.get("opponent", "").strip()[:200]
    opponent = selectors.player_by_number(number=suggested_number(asked)) if asked else None
    if opponent is None and asked:
        found = list(selectors.player_search(query=asked).exclude(pk=player.pk)[: VERSUS_CHOICES + 1])
        if len(found) == 1:
            opponent = found[0]
        elif found:
            return render(
                request,
                "players/versus_pick.html",
                {
                    "player": player,
                    "asked": asked,
                    "choices": found[:VERSUS_CHOICES],
                    "more": len(found) > VERSUS_CHOICES,
                },
            )
    if opponent is None or opponent == player:
        messages.error(
            request, _("No other player is called “%(name)s” or has that membership number.") % {"name": asked}
        )
        return redirect(f"{player_url(player)}#head-to-head")
    return redirect("players:versus", number=player.membership_number, other=opponent.membership_number)


def player_versus(request, number, other):
    player = get_object_or_404(Player.objects.public(), membership_number=number)
    opponent = get_object_or_404(Player.objects.public(), membership_number=other)
    if player == opponent:
        raise Http404("A player never plays themselves.")
    versus = head_to_head.head_to_head(player=player.participant_id, opponent=opponent.participant_id)
    table = HeadToHeadTable(versus.meetings, show_category=len(versus.categories) > 1)
    configure(request, table, per_page=VERSUS_PER_PAGE)
    table.corrections = match_corrections(match_ids=[row.record.entry.match_id for row in table.page.object_list])
    return render(
        request,
        "players/head_to_head.html",
        {
            "player": player,
            "opponent": opponent,
            "versus": versus,
            "table": table,
            "next_meetings": head_to_head.next_meetings(player=player.participant_id, opponent=opponent.participant_id),
        },
    )


# A player's or a team's page: today's standing in every category, one category in detail.


def _participant_context(request, participant_id: int) -> dict:
    standings = ratings_of_players.participant_standings(participant_id=participant_id)
    selected = _selected_standing(standings, request.GET.get("category", ""))
    context = {"standings": standings, "selected": selected, "section": None}
    if selected is None:
        return context
    ratings_of_players.standing_placed(selected)
    if selected.is_vekn:
        context["section"] = _vekn_section(request, selected, participant_id)
    elif selected.is_derived:
        context["section"] = _derived_section(selected, standings)
    else:
        context["section"] = _elo_section(request, selected, participant_id)
    return context


def _selected_standing(standings, slug: str):
    """The category asked for, else the one played most recently (a derived list has no history of its own)."""
    for standing in standings:
        if standing.category.slug == slug:
            return standing
    playable = [standing for standing in standings if not standing.is_derived] or standings
    if not playable:
        return None
    return max(playable, key=lambda standing: standing.last_played or date.min)  # ties: the first category


def _elo_section(request, standing, participant_id: int) -> dict:
    category = standing.category
    timeline = ratings_of_players.rating_timeline(category=category, participant_id=participant_id)
    own = user_plays_as(user=request.user, participant_id=participant_id)
    table = RatingHistoryTable(
        ratings_of_players.rating_history(category=category, participant_id=participant_id),
        rounding=category.display_rounding,
        exclude=() if own else ("appeal",),
    )
    configure(request, table, per_page=HISTORY_PER_PAGE)
    match_ids = [row.record.match_id for row in table.page.object_list]
    table.corrections = match_corrections(match_ids=match_ids)
    if own:  # the viewer's own history: each row offers an appeal (SPEC 5)
        table.appeals = appeal_marks(user=request.user, participant_id=participant_id, match_ids=match_ids)
    return {
        "kind": "elo",
        "timeline": timeline,
        "chart": ratings_of_players.elo_chart_data(category=category, timeline=timeline),
        "table": table,
        "opponents": ratings_of_players.frequent_opponents(category=category, participant_id=participant_id),
    }


def _vekn_section(request, standing, participant_id: int) -> dict:
    category = standing.category
    summary = vekn.vekn_summary(category=category, participant_id=participant_id)
    table = VeknScoreTable(summary.scores, rounding=category.display_rounding, best_of=summary.best_of)
    configure(request, table, per_page=HISTORY_PER_PAGE)
    return {"kind": "vekn", "vekn": summary, "chart": summary.chart, "table": table}


def _derived_section(standing, standings) -> dict:
    """A derived list (composite) has no history of its own: it is the mean of its components."""
    by_slug = {each.category.slug: each for each in standings}
    components = [
        (category, by_slug.get(category.slug))
        for category in ratings_of_players.categories_by_slug(slugs=standing.category.component_list)
    ]
    start = rating_shown(standing.category.start_rating, standing.category.display_rounding)
    # "constructed (1612) and limited (1600, no matches yet)", each linked to its tab.
    shown = [
        format_html(
            '<a href="?category={}#category">{}</a> ({})',
            category.slug,
            category.label.lower(),
            each.shown if each else _("%(rating)s, no matches yet") % {"rating": start},
        )
        for category, each in components
    ]
    return {
        "kind": "derived",
        "components": components,
        "components_listed": listed(shown),
        "start_rating": standing.category.start_rating,
    }
