import os

from django.core.wsgi import get_wsgi_application

from config.startup import secret_key_required

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
secret_key_required()
