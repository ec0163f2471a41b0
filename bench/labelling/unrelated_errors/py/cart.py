import requests
from _server import port

r = requests.get(f"http://127.0.0.1:{port}/cart", cookies=[("session", "abc123")])
