import requests
from _server import port

class RetryTransport:
    def __init__(self, retries):
        self.retries = retries

session = requests.Session()
session.mount("http://", RetryTransport(3))
r = session.get(f"http://127.0.0.1:{port}/health")
