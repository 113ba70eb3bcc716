"""A loopback proxy in front of `yote gui` that serves the page's files from
a folder instead of the ones embedded in the binary, so that the browser
suite can be rerun on edited assets without rebuilding (`--assets DIR`).
Every other path (the API, event streams) goes to the real server as it is.
"""

import http.client
import http.server
import os
import threading
import urllib.parse

TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}


def start(backend_url, folder):
    """Serves on a free loopback port; returns the proxy's URL."""
    backend = urllib.parse.urlparse(backend_url)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def local_file(self):
            path = urllib.parse.urlparse(self.path).path
            if path in ("/", "/index.html"):
                return os.path.join(folder, "index.html")
            if path.startswith("/assets/") and "/" not in path[len("/assets/"):]:
                return os.path.join(folder, path[len("/assets/"):])
            return None

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

        def handle_any(self, method):
            local = self.local_file() if method == "GET" else None
            if local:
                return self.serve_file(local)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            conn = http.client.HTTPConnection(backend.hostname, backend.port, timeout=600)
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "accept")}
            conn.request(method, self.path, body=body, headers=headers)
            reply = conn.getresponse()
            streaming = reply.getheader("Content-Type", "").startswith("text/event-stream")
            self.send_response(reply.status)
            for k, v in reply.getheaders():
                if k.lower() not in ("connection", "transfer-encoding", "content-length"):
                    self.send_header(k, v)
            if streaming:
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    while True:
                        line = reply.fp.readline()
                        if not line:
                            break
                        self.wfile.write(line)
                        self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True
            else:
                data = reply.read()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            conn.close()

        def serve_file(self, path):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", TYPES.get(os.path.splitext(path)[1], "application/octet-stream"))
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"
