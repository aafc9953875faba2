"""Signing in, changing and resetting a password, and a user's own account page."""

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_login_failed
from django.contrib.auth.views import LoginView, PasswordChangeView, PasswordResetView
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts import selectors, services
from accounts.forms import ClaimForm
from lib.client_address import client_address


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
    form = ClaimForm(request.POST or None, initial={"membership_number": profile.claimed_number})
    if request.method == "POST" and form.is_valid():
        services.profile_claim(user=request.user, membership_number=form.cleaned_data["membership_number"])
        messages.success(request, "Thank you: an admin will confirm your membership number.")
        return redirect("accounts:account")
    return render(
        request,
        "accounts/account.html",
        {
            "profile": profile,
            "player": selectors.user_player(user=request.user),
            "form": form,
            "can_organize": selectors.user_can_organize(user=request.user),
        },
    )
