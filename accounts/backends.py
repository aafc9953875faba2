from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings

from accounts.selectors import sign_in_failures_from
from lib.client_address import client_address


class SignInRateLimit(AxesStandaloneBackend):
    """The sign-in limits, checked before any password.

    django-axes pauses an account and address pair after SIGN_IN_FAILURE_LIMIT
    failures, so one person's typos never pause anybody else, even from the
    same address (a venue's network, a proxy). Against one address guessing
    many accounts, a higher limit counts that address's failures over every
    account (SIGN_IN_ADDRESS_FAILURE_LIMIT). Both end in django-axes' lockout
    page, and failures meanwhile are counted as any other.

    A sign-in without a request (a script, the test client's login()) has no
    address to rate-limit by; django-axes would refuse it with an error, so it
    is left to the next backend instead.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        super().authenticate(request, username=username, password=password, **kwargs)
        if sign_in_failures_from(address=client_address(request)) >= settings.SIGN_IN_ADDRESS_FAILURE_LIMIT:
            request.axes_locked_out = True  # django-axes' middleware answers with the lockout page
            raise AxesBackendPermissionDenied("too many failed sign-ins from this address")
        return None
