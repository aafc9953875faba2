"""Reads about accounts: who a user is as a player, and what they may do."""

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q, Sum
from django.utils import timezone

from accounts.models import PASSWORD_RESET_WINDOW, ClaimStatus, MembershipClaim, PasswordResetRequest
from accounts.roles import ADMINS, MANAGE_ALL_PERMISSION, ORGANIZE_PERMISSION
from players.models import Player


def user_player(*, user) -> Player | None:
    """The player an admin linked to this account, or None."""
    if not user.is_authenticated:
        return None
    return Player.objects.filter(account__user=user).first()


def user_can_organize(*, user) -> bool:
    return user.is_authenticated and user.is_active and user.has_perm(ORGANIZE_PERMISSION)


def user_manages_all_events(*, user) -> bool:
    return user.is_authenticated and user.is_active and user.has_perm(MANAGE_ALL_PERMISSION)


def _privileged():
    """Superusers, staff accounts and admins: accounts only superusers manage."""
    return Q(is_superuser=True) | Q(is_staff=True) | Q(groups__name=ADMINS)


def accounts_managed_by(*, actor):
    """The accounts `actor` may change: their password, e-mail, active flag, roles and player link.

    Superusers manage everyone. Admins manage the accounts of organizers and
    players; an admin who could change a superuser's or another admin's
    password or e-mail could sign in as them, so those are for superusers
    only. An admin's own account is theirs to manage, but what makes it
    privileged (staff status, roles, permissions) is read-only to them
    (`accounts.admin.UserAdmin`).
    """
    users = get_user_model().objects.all()
    if actor.is_superuser:
        return users
    return users.exclude(pk__in=users.filter(_privileged()).exclude(pk=actor.pk).values("pk"))


def account_managed_by(*, actor, account) -> bool:
    return account is None or accounts_managed_by(actor=actor).filter(pk=account.pk).exists()


def sign_in_failures_from(*, address: str) -> int:
    """Failed sign-ins from one address over every account, within the lockout period."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    attempts = AccessAttempt.objects.filter(ip_address=address, attempt_time__gte=since)
    return attempts.aggregate(failures=Sum("failures_since_start"))["failures"] or 0


def password_resets_requested(*, address: str | None = None, email: str | None = None) -> int:
    """Reset e-mails asked for in the last hour (sent or not), from an address, to an e-mail address, or both."""
    requests = PasswordResetRequest.objects.filter(requested_at__gte=timezone.now() - PASSWORD_RESET_WINDOW)
    if address is not None:
        requests = requests.filter(address=address)
    if email is not None:
        requests = requests.filter(email=email.strip().lower())
    return requests.count()


def claims_open():
    """Claims waiting for an admin, oldest first, with the account and the claimed player."""
    return (
        MembershipClaim.objects.filter(status=ClaimStatus.OPEN)
        .select_related("user", "player")
        .order_by("filed_at", "pk")
    )


def claims_decided(*, limit: int = 20) -> list[MembershipClaim]:
    return list(
        MembershipClaim.objects.exclude(status=ClaimStatus.OPEN)
        .select_related("user", "player", "decided_by")
        .order_by("-decided_at", "-pk")[:limit]
    )


def claims_of_user(*, user) -> list[MembershipClaim]:
    """The user's claims, newest first: the open one (if any) and the decisions on the others."""
    return list(MembershipClaim.objects.filter(user=user).select_related("player").order_by("-filed_at", "-pk"))


def claim_get(*, claim_id: int) -> MembershipClaim | None:
    return MembershipClaim.objects.select_related("user", "player").filter(pk=claim_id).first()
