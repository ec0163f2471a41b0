import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_GET(self): self._ok()
    def do_POST(self): self._ok()
    def _ok(self):
        try:
            self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
        except Exception: pass
    def log_message(self, *a): pass
class S(HTTPServer):
    def handle_error(self, *a): pass
srv = S(("127.0.0.1", 0), H); port = srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()
