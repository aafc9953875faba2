"""Demo accounts for the demo world (`manage.py seed_demo`): never for a real site.

Their passwords are public (README, "Organizers"), which is why only the
demo command creates them.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.models import MembershipClaim
from accounts.roles import ADMINS, ORGANIZERS, roles_ensure
from accounts.services import profile_link, profile_of
from corrections import services as corrections
from events.models import Event, EventStatus, Match
from organize import services as organize
from players.models import Player

DEMO_ACCOUNTS = (
    # username, password, group, staff (opens the admin site)
    ("organizer", "organizer-demo", ORGANIZERS, False),
    ("admin", "admin-demo", ADMINS, True),
)


def demo_accounts_create() -> list[str]:
    """Create (or reset) the demo organizer and admin; returns "username / password" lines."""
    roles_ensure()
    User = get_user_model()
    lines = []
    for username, password, group, staff in DEMO_ACCOUNTS:
        user, _ = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
        user.is_staff = staff
        user.set_password(password)
        user.save()
        user.groups.add(Group.objects.get(name=group))
        lines.append(f"{username} / {password} ({group.lower()[:-1]})")
    return lines


# The demo world's own history of the site: what its demo accounts have done, so every page has something to show.

DEMO_PLAYER = ("player", "player-demo")  # a player's account, linked to a real player of the demo world
DEMO_NEWCOMER = ("newcomer", "newcomer-demo")  # an account whose claim of a number waits in the admins' queue


def _account(username: str, password: str):
    User = get_user_model()
    user, _ = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
    user.set_password(password)
    user.save()
    return user


def demo_activity_create() -> list[str]:
    """What the demo accounts have done, made through the site's own services: the organizer's draft and
    submitted events, two corrections by the admin, a linked player's open appeal, a newcomer's open claim.
    Returns the accounts' "username / password" lines. Safe to run once per fresh demo world."""
    User = get_user_model()
    organizer = User.objects.get(username="organizer")
    admin = User.objects.get(username="admin")
    matches = Match.objects.filter(event__status=EventStatus.RATED, participant2__isnull=False, elimination=False)

    # The admin corrected two misreported results.
    corrected = list(matches.filter(games1=2, games2=0).order_by("-event__date", "pk")[:2])
    for match, reason in zip(
        corrected,
        (
            "The players swapped seats: the slip was filled in the wrong way round.",
            "A game was missed: the match went to three games.",
        ),
        strict=False,
    ):
        result = corrections.Result(match.games2, match.games1) if "swapped" in reason else corrections.Result(2, 1)
        corrections.match_correct(match=match, result=result, reason=reason, by=admin)

    # A player, linked to their number, appeals a loss of last season.
    appealed = matches.filter(games1=2, games2=1, participant2__player__isnull=False).order_by("-event__date").first()
    player_user = _account(*DEMO_PLAYER)
    lines = [f"{DEMO_PLAYER[0]} / {DEMO_PLAYER[1]} (player)"]
    if appealed is not None:
        player = appealed.participant2.player
        profile_link(profile=profile_of(user=player_user), player=player, by=admin)
        corrections.appeal_file(
            user=player_user, match=appealed, own_games=2, opponent_games=1, draws=0,
            explanation="I won that match 2-1: the result was entered for the wrong table.",
        )  # fmt: skip

    # A newcomer claims a number; the admin has not looked yet.
    newcomer = _account(*DEMO_NEWCOMER)
    claimed = Player.objects.filter(account__isnull=True).order_by("-pk").first()
    if claimed is not None:
        MembershipClaim.objects.create(user=newcomer, player=claimed, note="I play at the store in my city.")
    lines.append(f"{DEMO_NEWCOMER[0]} / {DEMO_NEWCOMER[1]} (claim waiting)")

    # The organizer's events: one submitted (waiting to be rated), one still a draft.
    last = Event.objects.filter(status=EventStatus.RATED, format="standard", team_size=1).order_by("-date").first()
    if last is not None:
        regulars = list(Player.objects.filter(country=last.country or "DE").order_by("membership_number")[:8]) or list(
            Player.objects.order_by("membership_number")[:8]
        )
        for name, status in (("Thursday Standard", EventStatus.SUBMITTED), ("Friday Night Magic", EventStatus.DRAFT)):
            event = organize.event_create(
                organizer=organizer, name=f"{name} at the Demo Store", date=last.date, format="standard", k=8,
                player_count=len(regulars), city=last.city, country=last.country,
            )  # fmt: skip
            header = "round,player1_id,player2_id,player1_games,player2_games,draws,elimination\n"
            rows = "".join(
                f"1,{one.membership_number},{two.membership_number},2,{index % 2},0,0\n"
                for index, (one, two) in enumerate(zip(regulars[::2], regulars[1::2], strict=False))
            )
            organize.event_results_replace(event=event, by=organizer, files={"matches.csv": (header + rows).encode()})
            if status == EventStatus.SUBMITTED:
                organize.event_submit(event=event, by=organizer)
    return lines
