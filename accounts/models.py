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
