from axes.backends import AxesStandaloneBackend


class SignInRateLimit(AxesStandaloneBackend):
    """django-axes' lockout check for sign-ins over the web.

    A sign-in without a request (a script, the test client's login()) has no
    address to rate-limit by; django-axes would refuse it with an error, so it
    is left to the next backend instead.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
