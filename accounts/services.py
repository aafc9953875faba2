"""Writes about accounts: a user's stated membership number, an admin's link to a player, sign-in limits."""

from datetime import datetime, timedelta

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import PASSWORD_RESET_WINDOW, PasswordResetRequest, Profile
from accounts.selectors import password_resets_requested
from players.models import Player

SIGN_IN_LOGS_KEPT = timedelta(days=30)  # who signed in or failed to, for admins looking into an account


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


@transaction.atomic
def password_reset_allowed(*, address: str, email: str) -> bool:
    """Record a request for a reset e-mail and say whether it may be sent.

    At most PASSWORD_RESETS_PER_ADDRESS an hour from one address (against
    mail bombing many people) and PASSWORD_RESETS_PER_ACCOUNT an hour to one
    e-mail address (against bombing one). Requests are counted whether or not
    an account has the address, so the answer tells nothing about accounts.
    """
    allowed = (
        password_resets_requested(address=address) < settings.PASSWORD_RESETS_PER_ADDRESS
        and password_resets_requested(email=email) < settings.PASSWORD_RESETS_PER_ACCOUNT
    )
    PasswordResetRequest.objects.create(address=address, email=email.strip().lower())
    return allowed


def sign_in_records_prune(*, now: datetime | None = None) -> int:
    """Delete sign-in records that can no longer pause anybody or be worth reading; how many went."""
    now = now or timezone.now()
    deleted = 0
    for records in (
        AccessAttempt.objects.filter(attempt_time__lt=now - settings.AXES_COOLOFF_TIME),
        AccessFailureLog.objects.filter(attempt_time__lt=now - SIGN_IN_LOGS_KEPT),
        AccessLog.objects.filter(attempt_time__lt=now - SIGN_IN_LOGS_KEPT),
        PasswordResetRequest.objects.filter(requested_at__lt=now - PASSWORD_RESET_WINDOW),
    ):
        deleted += records.delete()[0]
    return deleted
