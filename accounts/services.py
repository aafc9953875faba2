"""Writes about accounts: signing up, membership claims and their decisions, the player link, sign-in limits."""

from datetime import datetime, timedelta

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts.models import PASSWORD_RESET_WINDOW, ClaimStatus, MembershipClaim, PasswordResetRequest, Profile
from accounts.selectors import password_resets_requested
from accounts.tokens import email_confirmation_tokens
from lib.decisions import decision_record
from lib.mail import mail_on_commit
from players.models import Player

SIGN_IN_LOGS_KEPT = timedelta(days=30)  # who signed in or failed to, for admins looking into an account
# A sign-up never confirmed is deleted this long after its link died (PASSWORD_RESET_TIMEOUT): long enough
# for its owner to ask for the link again, short enough that an address typed by mistake is freed.
UNCONFIRMED_SIGN_UPS_KEPT = timedelta(days=7)
UNCONFIRMED_SIGN_UPS_PRUNED_AT_ONCE = 10_000


def profile_of(*, user) -> Profile:
    """The user's profile, created on first use (accounts made in the admin or by createsuperuser have none)."""
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


@transaction.atomic
def profile_link(*, profile: Profile, player: Player | None, by) -> Profile:
    """Link (or unlink, with None) the account to a player; admins only, recorded with who and when."""
    profile.player = player
    profile.linked_by = by if player else None
    profile.linked_at = timezone.now() if player else None
    profile.save(update_fields=["player", "linked_by", "linked_at"])
    return profile


# Signing up ------------------------------------------------------------------------------------------------


@transaction.atomic
def account_sign_up(*, username: str, email: str, password: str, site: dict) -> None:
    """Create an account waiting for its e-mail to be confirmed, and send the link that confirms it.

    An address that has an account already gets a reminder instead (sign in,
    or reset the password), and one whose account waits for confirmation gets
    its link again: the page after signing up is the same in every case, so
    nobody learns from it whether an address has an account. `site` holds the
    `protocol` and `domain` of the links.
    """
    User = get_user_model()
    email = User.objects.normalize_email(email).strip()
    existing = User.objects.filter(email__iexact=email).order_by("pk").first()
    if existing is not None and existing.is_active:
        mail_on_commit(
            to=existing.email, template="registration/sign_up_again_email.txt", context={"user": existing, **site}
        )
        return
    if existing is None:
        try:
            with transaction.atomic():
                existing = User.objects.create_user(username=username, email=email, password=password, is_active=False)
        except IntegrityError:  # the same name signed up meanwhile: the form checked it, but another request won
            raise ValidationError({"username": _("A user with that username already exists.")}) from None
        Profile.objects.create(user=existing)
    mail_on_commit(
        to=existing.email,
        template="registration/sign_up_email.txt",
        context={
            "user": existing,
            "uid": urlsafe_base64_encode(force_bytes(existing.pk)),
            "token": email_confirmation_tokens.make_token(existing),
            **site,
        },
    )


def account_to_confirm(*, uidb64: str, token: str):
    """The account whose confirmation link this is, if the link is valid and unused; else None."""
    User = get_user_model()
    try:
        user = User.objects.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (ValueError, TypeError, OverflowError, User.DoesNotExist):
        return None
    if user.is_active or not email_confirmation_tokens.check_token(user, token):
        return None
    return user


@transaction.atomic
def account_confirm(*, user) -> None:
    """The e-mail address is the user's: the account opens (the view signs them in)."""
    user.is_active = True
    user.save(update_fields=["is_active"])
    profile_of(user=user)


def unconfirmed_sign_ups_prune(*, now: datetime | None = None) -> int:
    """Delete accounts that signed up and never confirmed their address; how many went.

    Such an account holds a user name and an address its owner may never
    have typed (anybody can sign up with anybody's address), and nobody can
    use it: confirming is the only way in. An account is taken for one only
    when nothing but signing up ever happened to it: never signed in, no
    role, no claim, no player, and its link dead for UNCONFIRMED_SIGN_UPS_KEPT.
    An account an admin closed has signed in once, or carries a role, and stays.
    """
    now = now or timezone.now()
    User = get_user_model()
    joined_before = now - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT) - UNCONFIRMED_SIGN_UPS_KEPT
    unconfirmed = User.objects.filter(
        is_active=False, last_login__isnull=True, is_staff=False, is_superuser=False,
        date_joined__lt=joined_before, groups__isnull=True, user_permissions__isnull=True,
        membership_claims__isnull=True, profile__player__isnull=True,
    )  # fmt: skip
    # At most a batch a run, so a flood of sign-ups costs the worker a bounded pause; the next run goes on.
    # Deleted by key: Django deletes the profiles first, and a delete on a query with joins would not do.
    ids = list(unconfirmed.values_list("pk", flat=True)[:UNCONFIRMED_SIGN_UPS_PRUNED_AT_ONCE])
    _, deleted = User.objects.filter(pk__in=ids).delete()
    return deleted.get(User._meta.label, 0)


# Membership claims -------------------------------------------------------------------------------------------


@transaction.atomic
def claim_file(*, user, membership_number: str, note: str = "") -> MembershipClaim:
    """The user says `membership_number` is theirs; it waits in the claims queue. Replaces their open claim."""
    profile = profile_of(user=user)
    if profile.player_id is not None:
        raise ValidationError(_("Your account is linked to a player already."))
    player = Player.objects.public().filter(membership_number=membership_number.strip()).first()
    if player is None:
        raise ValidationError(
            {
                "membership_number": _("No player has the membership number “%(number)s”.")
                % {"number": membership_number}
            }
        )
    if Profile.objects.filter(player=player).exists():
        raise ValidationError(
            {"membership_number": _("That number belongs to another account. If it is yours, write to an admin.")}
        )
    MembershipClaim.objects.filter(user=user, status=ClaimStatus.OPEN).delete()
    claim = MembershipClaim(user=user, player=player, note=note.strip())
    claim.full_clean(exclude=["user", "player"])
    claim.save()
    return claim


def _claim_decide(claim: MembershipClaim, *, by, reason: str, status: str, site: dict) -> MembershipClaim:
    claim = decision_record(
        MembershipClaim,
        claim.pk,
        what="claim",
        by=by,
        status=status,
        reason=reason,
        reason_field="reason",
        related=("user", "player"),
    )
    if claim.user.email:
        mail_on_commit(
            to=claim.user.email, template="accounts/claim_decided_email.txt", context={"claim": claim, **site}
        )
    return claim


@transaction.atomic
def claim_accept(*, claim: MembershipClaim, by, reason: str = "", site: dict) -> MembershipClaim:
    """Link the account to the claimed player; the user is told by e-mail and on their account page."""
    if Profile.objects.filter(player=claim.player_id).exclude(user=claim.user_id).exists():
        raise ValidationError(_("That player is linked to another account meanwhile."))
    claim = _claim_decide(claim, by=by, reason=reason, status=ClaimStatus.ACCEPTED, site=site)
    profile_link(profile=profile_of(user=claim.user), player=claim.player, by=by)
    return claim


@transaction.atomic
def claim_reject(*, claim: MembershipClaim, by, reason: str, site: dict) -> MembershipClaim:
    """Refuse the claim with a reason the user reads; they may claim again."""
    if not reason.strip():
        raise ValidationError({"reason": _("Say why: the player reads it.")})
    return _claim_decide(claim, by=by, reason=reason, status=ClaimStatus.REJECTED, site=site)


# Sign-in limits ----------------------------------------------------------------------------------------------


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
