"""Atom feeds for readers who follow a player or a list without visiting (Django's syndication framework).

- /players/<number>/feed/: the player's rating after each event in every Elo
  list, and the corrections of matches they played, newest first;
- /rankings/<category>/feed/: the official lists as they are published at
  each month end (SPEC 4), with their leaders.

The correction log's feed is the corrections app's (/corrections/feed/).
"""

from dataclasses import dataclass
from datetime import date, datetime, time

from django.contrib.syndication.views import Feed
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from corrections.models import Correction
from corrections.selectors import participants_of_player
from players.formatting import signed
from players.models import Player
from ratings.formatting import rating_shown
from ratings.models import Category, OfficialList, Ruleset, SnapshotRating
from ratings.selectors import players as ratings_of_players
from ratings.selectors.official import official_lists

PLAYER_ITEMS = 50
LIST_ITEMS = 24  # official lists, the newest: two years
LEADERS_IN_ITEM = 10


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


@dataclass(frozen=True, slots=True)
class FeedItem:
    title: str
    description: str
    link: str
    guid: str
    published: datetime


class PlayerFeed(Feed):
    feed_type = Atom1Feed

    def get_object(self, request, number):
        return get_object_or_404(Player.objects.public(), membership_number=number)

    def title(self, player: Player) -> str:
        return _("%(name)s (%(number)s): ratings and corrections") % {
            "name": player.name,
            "number": player.membership_number,
        }

    def subtitle(self, player: Player) -> str:
        return _("%(name)s's rating after each event in every list, and the corrections of matches they played.") % {
            "name": player.name
        }

    def link(self, player: Player) -> str:
        return player.get_absolute_url()

    def items(self, player: Player) -> list[FeedItem]:
        items = []
        for standing in ratings_of_players.participant_standings(participant_id=player.participant_id):
            category = standing.category
            if category.ruleset in (Ruleset.VEKN, Ruleset.DERIVED):
                continue  # V:EKN scores events, not ratings; a derived list has no events of its own
            timeline = ratings_of_players.rating_timeline(category=category, participant_id=player.participant_id)
            for point in timeline.points[-PLAYER_ITEMS:]:
                rounding = category.display_rounding
                after = rating_shown(point.rating_after, rounding)
                change = signed(point.rating_after - point.rating_before)
                values = {
                    "list": category.label,
                    "rating": after,
                    "event": point.event_name,
                    "change": change,
                    "player": player.name,
                    "before": rating_shown(point.rating_before, rounding),
                    "date": date_format(point.date, pgettext("date in a feed item (Django date format)", "d M Y")),
                    "won": point.record.wins,
                    "drawn": point.record.draws,
                    "lost": point.record.losses,
                }
                items.append(
                    FeedItem(
                        title=_("%(list)s: %(rating)s after %(event)s (%(change)s)") % values,
                        description=_(
                            "%(player)s's %(list)s rating went from %(before)s to %(rating)s at %(event)s on "
                            "%(date)s (%(won)s won, %(drawn)s drawn, %(lost)s lost)."
                        )
                        % values,
                        link=reverse("events:detail", args=[point.event_id]),
                        guid=f"{player.get_absolute_url()}?category={category.slug}#event-{point.event_id}",
                        published=_day_start(point.date),
                    )
                )
        participants = sorted(participants_of_player(player=player))
        corrections = (
            Correction.objects.with_names()
            .select_related("corrected_by")
            .filter(Q(participant1__in=participants) | Q(participant2__in=participants))
            .order_by("-corrected_at", "-pk")[:PLAYER_ITEMS]
        )
        for correction in corrections:
            items.append(
                FeedItem(
                    title=_("Corrected: %(event)s, round %(round)s: %(pairing)s")
                    % {"event": correction.event_name, "round": correction.round, "pairing": correction.pairing},
                    description=_("Was: %(old)s. Now: %(new)s. %(reason)s")
                    % {"old": correction.old_result, "new": correction.new_result, "reason": correction.reason},
                    link=correction.get_absolute_url(),
                    guid=correction.get_absolute_url(),
                    published=correction.corrected_at,
                )
            )
        items.sort(key=lambda item: item.published, reverse=True)
        return items[:PLAYER_ITEMS]

    def item_title(self, item: FeedItem) -> str:
        return item.title

    def item_description(self, item: FeedItem) -> str:
        return item.description

    def item_link(self, item: FeedItem) -> str:
        return item.link

    def item_guid(self, item: FeedItem) -> str:
        return item.guid

    def item_pubdate(self, item: FeedItem) -> datetime:
        return item.published


class RankingFeed(Feed):
    """A list's official lists as they are published (ratings.services.official), each with its leaders."""

    feed_type = Atom1Feed

    def get_object(self, request, slug):
        category = Category.objects.filter(slug=slug).first()
        if category is None:
            raise Http404(f"No rating category {slug!r}.")
        return category

    def title(self, category: Category) -> str:
        return _("%(name)s: the official lists") % {"name": category.label}

    def subtitle(self, category: Category) -> str:
        return _("The %(name)s list published at the end of each month, with its leaders.") % {"name": category.label}

    def link(self, category: Category) -> str:
        return reverse("ratings:official", args=[category.slug])

    def items(self, category: Category) -> list[OfficialList]:
        lists = list(official_lists(category=category).select_related("category")[:LIST_ITEMS])
        # Every list's leaders in one read: the first LEADERS_IN_ITEM positions of each list.
        leaders = SnapshotRating.objects.filter(
            snapshot_id__in=[each.snapshot_id for each in lists], ranked=True, world_position__lte=LEADERS_IN_ITEM
        ).order_by("snapshot_id", "world_position")
        by_snapshot: dict[int, list] = {}
        for snapshot_id, rank, name, rating in leaders.values_list("snapshot_id", "world_rank", "name", "rating"):
            by_snapshot.setdefault(snapshot_id, []).append((rank, name, rating))
        for each in lists:
            each.leaders = by_snapshot.get(each.snapshot_id, [])
        return lists

    def item_title(self, item: OfficialList) -> str:
        return _("%(name)s: the official list of %(month)s") % {
            "name": item.category.label,
            "month": date_format(item.as_of, "YEAR_MONTH_FORMAT"),
        }

    def item_description(self, item: OfficialList) -> str:
        shown = "; ".join(
            f"{rank}. {name} {rating_shown(rating, item.category.display_rounding)}"
            for rank, name, rating in item.leaders
        )
        return _("%(count)s ranked. The leaders: %(leaders)s.") % {"count": item.ranked, "leaders": shown}

    def item_link(self, item: OfficialList) -> str:
        return reverse("ratings:official-list", args=[item.category.slug, item.as_of.isoformat()])

    def item_pubdate(self, item: OfficialList) -> datetime:
        return item.published_at
