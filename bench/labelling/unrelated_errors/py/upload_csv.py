import requests
from _server import port

def rows():
    yield b"id,total\n"
    raise ValueError("bad row 3: total is not a number")

r = requests.post(f"http://127.0.0.1:{port}/upload", data=rows())
