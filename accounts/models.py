from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy

from accounts.roles import MANAGE_ALL_EVENTS, ORGANIZE_EVENTS
from players.models import Player


class Profile(models.Model):
    """What the site knows about an account beyond Django's user: the player it belongs to.

    A user claims a membership number (MembershipClaim); only an admin sets
    `player`, by confirming the claim or in the admin site, so `player` can be
    trusted: linked players appeal matches of their own history. From a user:
    `user.profile.player`, or `accounts.selectors.user_player(user=...)`.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    player = models.OneToOneField(
        "players.Player",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="account",
        help_text="Set or confirmed by an admin; one account per player.",
    )
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    linked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        permissions = [
            (ORGANIZE_EVENTS, "Can report events as their organizer"),
            (MANAGE_ALL_EVENTS, "Can see and change every event's results, also after submission"),
        ]

    def __str__(self):
        return f"{self.user}: {self.player or 'no player linked'}"


class ClaimStatus(models.TextChoices):
    OPEN = "open", gettext_lazy("Waiting for an admin")
    ACCEPTED = "accepted", gettext_lazy("Confirmed")
    REJECTED = "rejected", gettext_lazy("Not confirmed")


class MembershipClaim(models.Model):
    """A user's word that a membership number is theirs, and an admin's decision on it.

    An admin compares the account with the player (name, country, last
    events) in the claims queue; confirming links the account to the player.
    A user has at most one open claim; the decided ones stay as the record.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership_claims")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="claims")
    note = models.TextField(
        gettext_lazy("how an admin can tell it is you"),
        max_length=1000,
        blank=True,
        help_text=gettext_lazy("Optional: events you played, your store, anything that helps an admin compare."),
    )
    status = models.CharField(max_length=8, choices=ClaimStatus.choices, default=ClaimStatus.OPEN)
    filed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField("the admin's reason", max_length=1000, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=models.Q(status="open"), name="membership_claim_open_once"
            ),
        ]
        indexes = [models.Index(fields=["status", "filed_at"], name="membership_claim_queue")]

    def __str__(self):
        return f"{self.user} claims {self.player.membership_number}: {self.get_status_display()}"

    @property
    def is_open(self) -> bool:
        return self.status == ClaimStatus.OPEN

    @property
    def is_accepted(self) -> bool:
        return self.status == ClaimStatus.ACCEPTED


PASSWORD_RESET_WINDOW = timedelta(hours=1)  # reset e-mails are counted over this long


class PasswordResetRequest(models.Model):
    """One request for a password-reset e-mail: who asked (the address) and for which e-mail address.

    Counted to throttle the e-mails per address and per account
    (accounts.services.password_reset_allowed); deleted by the workers'
    housekeeping once older than the window they are counted in.
    """

    address = models.CharField(max_length=64)  # as lib.client_address gives it (never trusted to parse)
    email = models.EmailField(max_length=254)
    requested_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["address", "requested_at"], name="reset_request_by_address"),
            models.Index(fields=["email", "requested_at"], name="reset_request_by_email"),
        ]

    def __str__(self):
        return f"{self.email} from {self.address} at {self.requested_at:%Y-%m-%d %H:%M}"
