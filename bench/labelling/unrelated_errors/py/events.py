import datetime
import requests
from _server import port

event = {"type": "signup", "when": datetime.datetime(2024, 5, 1, 12, 0)}
r = requests.post(f"http://127.0.0.1:{port}/events", json=event)
