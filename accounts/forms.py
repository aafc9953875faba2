from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from accounts.models import MembershipClaim
from players.models import membership_number_validator


class SignUpForm(UserCreationForm):
    """A name to sign in with, an e-mail address to confirm, and a password (Django's validators)."""

    email = forms.EmailField(
        label="E-mail", max_length=254, help_text="We send a link there: the account opens once you follow it."
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email"]


class ClaimForm(forms.Form):
    membership_number = forms.CharField(
        max_length=32,
        validators=[membership_number_validator],
        help_text="Your DCI or V:EKN number. An admin compares it with your account and links them.",
    )
    note = forms.CharField(
        label=MembershipClaim._meta.get_field("note").verbose_name.capitalize(),
        help_text=MembershipClaim._meta.get_field("note").help_text,
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class ClaimDecisionForm(forms.Form):
    ACCEPT = "accept"
    REJECT = "reject"

    decision = forms.ChoiceField(choices=[(ACCEPT, "Confirm"), (REJECT, "Refuse")], widget=forms.HiddenInput)
    reason = forms.CharField(
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="The player reads it. Needed to refuse.",
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("decision") == self.REJECT and not cleaned.get("reason", "").strip():
            self.add_error("reason", "Say why: the player reads it.")
        return cleaned
