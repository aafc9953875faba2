from datetime import timedelta

from django.conf import settings
from django.db import models

from accounts.roles import MANAGE_ALL_EVENTS, ORGANIZE_EVENTS
from players.models import membership_number_validator


class Profile(models.Model):
    """What the site knows about an account beyond Django's user: the player it belongs to.

    A user may state their membership number (`claimed_number`); only an admin
    sets `player`, so `player` can be trusted (a later feature lets linked
    players appeal matches in their own history). From a user:
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
    claimed_number = models.CharField(
        "membership number stated by the user",
        max_length=32,
        blank=True,
        validators=[membership_number_validator],
        help_text="What the user says their membership number is; an admin confirms it by linking the player.",
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
