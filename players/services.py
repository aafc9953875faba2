"""Writes for players and teams. Each one creates a row and its Participant together or not at all."""

from django.core.exceptions import ValidationError
from django.db import transaction

from players.models import Participant, Player, Team, team_member_key
from players.validators import validate_region, validate_team_members


@transaction.atomic
def player_create(*, membership_number: str, name: str, country: str = "", region: str = "") -> Player:
    try:
        validate_region(region, country)
    except ValidationError as error:
        raise ValidationError({"region": error}) from error
    player = Player(membership_number=membership_number, name=name, country=country, region=region)
    player.full_clean(exclude=["participant"])
    player.participant = Participant.objects.create(kind=Participant.Kind.PLAYER)
    player.save()
    return player


@transaction.atomic
def team_create(*, members, name: str = "") -> Team:
    members = list(members)
    try:
        member_key = validate_team_members(members)
    except ValidationError as error:
        raise ValidationError({"members": error}) from error
    team = Team.objects.create(
        participant=Participant.objects.create(kind=Participant.Kind.TEAM), name=name, member_key=member_key
    )
    team.members.set(members)
    return team


@transaction.atomic
def team_member_keys_refresh(*, player: Player) -> None:
    """Recompute the member keys of the player's teams, after their membership number changed."""
    for team in player.teams.prefetch_related("members"):
        team.member_key = team_member_key(member.membership_number for member in team.members.all())
        team.save(update_fields=["member_key"])


@transaction.atomic
def participant_entity_delete(*, entity: Player | Team) -> None:
    """Delete a player or team together with its participant.

    The participant's matches and standings protect it: deleting one that has
    results raises ProtectedError and nothing is deleted.
    """
    participant = entity.participant
    entity.delete()
    participant.delete()
