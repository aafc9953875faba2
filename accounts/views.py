"""Signing up and in, changing and resetting a password, and a user's own account page with their claims."""

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_login_failed
from django.contrib.auth.views import LoginView, PasswordChangeView, PasswordResetView
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts import selectors, services
from accounts.forms import ClaimForm, SignUpForm
from lib.client_address import client_address
from lib.forms import errors_to_form
from lib.mail import mail_site
from lib.throttle import budget_spend

SIGN_UPS_PER_HOUR = 10  # per client address: each sends an e-mail


@require_http_methods(["GET", "POST"])
def sign_up(request):
    if request.user.is_authenticated:
        return redirect("accounts:account")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        wait = budget_spend(scope="sign-up", client=client_address(request), limit=SIGN_UPS_PER_HOUR, window=3600)
        if wait:
            minutes = max(1, round(wait / 60))
            response = render(request, "registration/sign_up_throttled.html", {"minutes": minutes}, status=429)
            response["Retry-After"] = str(wait)
            return response
        try:
            services.account_sign_up(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                site=mail_site(request),
            )
        except ValidationError as error:
            errors_to_form(form, error)
        else:
            return redirect("accounts:sign_up_done")
    return render(request, "registration/sign_up.html", {"form": form})


def sign_up_done(request):
    return render(request, "registration/sign_up_done.html")


@require_http_methods(["GET", "POST"])
def sign_up_confirm(request, uidb64, token):
    """The link of the e-mail: a button that opens the account (a POST: mail scanners follow links) and signs in."""
    user = services.account_to_confirm(uidb64=uidb64, token=token)
    if user is None:
        return render(request, "registration/sign_up_confirm.html", {"valid": False}, status=400)
    if request.method == "POST":
        services.account_confirm(user=user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Your e-mail address is confirmed and you are signed in. Now claim your number."))
        return redirect("accounts:account")
    return render(request, "registration/sign_up_confirm.html", {"valid": True, "account": user})


class SignInView(LoginView):
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self):
        """Organizers go to their events; everyone else to their account."""
        if selectors.user_can_organize(user=self.request.user):
            return reverse("organize:index")
        return reverse("accounts:account")


class PasswordChange(PasswordChangeView):
    """Django's password change, where a wrong old password counts as a failed sign-in.

    Otherwise a stolen session (a shared computer left signed in) could guess
    the password there without limit, then change it.
    """

    def _credentials(self):
        return {"username": self.request.user.get_username()}

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not AxesProxyHandler.is_allowed(request, self._credentials()):
            return get_lockout_response(request, credentials=self._credentials())
        return super().dispatch(request, *args, **kwargs)

    def form_invalid(self, form):
        if "old_password" in form.errors:
            user_login_failed.send(sender=__name__, credentials=self._credentials(), request=self.request)
            if not AxesProxyHandler.is_allowed(self.request, self._credentials()):
                return get_lockout_response(self.request, credentials=self._credentials())
        return super().form_invalid(form)


class PasswordReset(PasswordResetView):
    """Django's password reset, with its e-mails throttled per address and per e-mail address."""

    def form_valid(self, form):
        address = client_address(self.request)
        if services.password_reset_allowed(address=address, email=form.cleaned_data["email"]):
            return super().form_valid(form)
        if selectors.password_resets_requested(address=address) > settings.PASSWORD_RESETS_PER_ADDRESS:
            # Too many from this address: say so (it tells nothing about any account).
            response = render(self.request, "registration/password_reset_throttled.html", {"minutes": 60}, status=429)
            response["Retry-After"] = "3600"
            return response
        # Enough e-mails went to that address this hour: the same page as when one is sent, so that
        # nobody learns whether the address has an account.
        return redirect(self.get_success_url())


@login_required
def account(request):
    profile = services.profile_of(user=request.user)
    player = selectors.user_player(user=request.user)
    form = ClaimForm(request.POST or None)
    if request.method == "POST" and player is None and form.is_valid():
        try:
            services.claim_file(user=request.user, **form.cleaned_data)
        except ValidationError as error:
            errors_to_form(form, error)
        else:
            messages.success(request, _("Thank you: an admin will compare your account with that player and decide."))
            return redirect("accounts:account")
    claims = selectors.claims_of_user(user=request.user)
    return render(
        request,
        "accounts/account.html",
        {
            "profile": profile,
            "player": player,
            "form": form,
            "open_claim": next((claim for claim in claims if claim.is_open), None),
            "decided_claims": [claim for claim in claims if not claim.is_open],
            "can_organize": selectors.user_can_organize(user=request.user),
        },
    )
