"""A loopback HTTP server answering 200 "ok" to every GET and POST (for the scripts beside it)."""

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self._ok()

    def do_POST(self):
        self._ok()

    def _ok(self):
        try:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        except OSError:
            pass

    def log_message(self, *args):
        pass


class QuietServer(HTTPServer):
    def handle_error(self, *args):
        pass


server = QuietServer(("127.0.0.1", 0), Handler)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
