from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import MembershipClaim
from players.models import membership_number_validator


class SignUpForm(UserCreationForm):
    """A name to sign in with, an e-mail address to confirm, and a password (Django's validators)."""

    email = forms.EmailField(
        label=gettext_lazy("E-mail"),
        max_length=254,
        help_text=gettext_lazy("We send a link there: the account opens once you follow it."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email"]


class ClaimForm(forms.Form):
    membership_number = forms.CharField(
        label=gettext_lazy("Membership number"),
        max_length=32,
        validators=[membership_number_validator],
        help_text=gettext_lazy("Your DCI or V:EKN number. An admin compares it with your account and links them."),
    )
    note = forms.CharField(
        label=capfirst(MembershipClaim._meta.get_field("note").verbose_name),
        help_text=MembershipClaim._meta.get_field("note").help_text,
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class ClaimDecisionForm(forms.Form):
    ACCEPT = "accept"
    REJECT = "reject"

    decision = forms.ChoiceField(
        choices=[(ACCEPT, gettext_lazy("Confirm")), (REJECT, gettext_lazy("Refuse"))], widget=forms.HiddenInput
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("The player reads it. Needed to refuse."),
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("decision") == self.REJECT and not cleaned.get("reason", "").strip():
            self.add_error("reason", _("Say why: the player reads it."))
        return cleaned
