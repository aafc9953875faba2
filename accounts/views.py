"""Signing in, and a user's own account page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts import selectors, services
from accounts.forms import ClaimForm


class SignInView(LoginView):
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self):
        """Organizers go to their events; everyone else to their account."""
        if selectors.user_can_organize(user=self.request.user):
            return reverse("organize:index")
        return reverse("accounts:account")


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
