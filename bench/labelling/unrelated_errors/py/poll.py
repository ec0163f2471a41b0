import os
import requests
from _server import port

r = requests.get(f"http://127.0.0.1:{port}/jobs", timeout=os.environ.get("POLL_TIMEOUT", "5"))
