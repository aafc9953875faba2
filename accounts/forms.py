from django import forms

from players.models import membership_number_validator


class ClaimForm(forms.Form):
    membership_number = forms.CharField(
        max_length=32,
        validators=[membership_number_validator],
        help_text="Your DCI or V:EKN number. An admin checks it and links your account to your player page.",
    )
