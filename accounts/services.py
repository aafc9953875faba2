"""Writes about accounts: a user's stated membership number, and an admin's link to a player."""

from django.db import transaction
from django.utils import timezone

from accounts.models import Profile
from players.models import Player


def profile_of(*, user) -> Profile:
    """The user's profile, created on first use (accounts made in the admin or by createsuperuser have none)."""
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


@transaction.atomic
def profile_claim(*, user, membership_number: str) -> Profile:
    """Record the membership number the user says is theirs; the link itself waits for an admin."""
    profile = profile_of(user=user)
    profile.claimed_number = membership_number
    profile.full_clean(exclude=["user", "player"])
    profile.save(update_fields=["claimed_number"])
    return profile


@transaction.atomic
def profile_link(*, profile: Profile, player: Player | None, by) -> Profile:
    """Link (or unlink, with None) the account to a player; admins only, recorded with who and when."""
    profile.player = player
    profile.linked_by = by if player else None
    profile.linked_at = timezone.now() if player else None
    profile.save(update_fields=["player", "linked_by", "linked_at"])
    return profile
