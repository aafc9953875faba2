"""Checks shared by the admin forms and the services that create players and teams."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django_countries import countries

from players import geography
from players.models import Team, team_member_key

# SPEC 1: a team is 3 players, and team events are played by teams of 3.
TEAM_SIZE = 3


def validate_region(region: str, country: str) -> None:
    """A region is an ISO 3166-2 subdivision code of the player's own country (SPEC 1)."""
    if not region:
        return
    if not geography.is_region(region):
        raise ValidationError(
            _("%(region)s is not an ISO 3166-2 region code (for example DE-BY or US-CA)."),
            code="invalid_region",
            params={"region": region},
        )
    region_country = region.split("-", 1)[0]
    if region_country != country:
        raise ValidationError(
            _("%(region)s is a region of %(name)s: set the country to %(name)s or leave the region empty."),
            code="region_not_in_country",
            params={"region": region, "name": countries.name(region_country) or region_country},
        )


def validate_team_members(members, *, team: Team | None = None) -> str:
    """Return the member key of a valid member set; another team with the same set is an error."""
    members = list(members)
    if len(members) != TEAM_SIZE:
        raise ValidationError(
            _("A team has exactly %(size)d members; %(count)d chosen."),
            code="team_size",
            params={"size": TEAM_SIZE, "count": len(members)},
        )
    member_key = team_member_key(member.membership_number for member in members)
    duplicates = Team.objects.filter(member_key=member_key)
    if team is not None and team.pk is not None:
        duplicates = duplicates.exclude(pk=team.pk)
    duplicate = duplicates.first()
    if duplicate is not None:
        raise ValidationError(
            _("The team “%(team)s” already has exactly these members; a team is its set of members."),
            code="duplicate_team",
            params={"team": duplicate},
        )
    return member_key
