"""A round-robin HTTP proxy for the upgrade check (scripts/upgrade-check.sh): each
request goes to the next of the BACKEND URLs in turn, as a load balancer without
sticky sessions would send it, so one game is served by an old and a new process.

    python3 round_robin.py PORT LOG BACKEND...

It answers with the backend's status, headers and body, and appends one line per
request to LOG: `BACKEND STATUS METHOD PATH`. A backend that cannot be reached, or
answers what is not HTTP, is a 502 (and a line with status 502); a chunked request body
a 501: the check counts both as failures. The first request goes to the first backend.
"""

from __future__ import annotations

import http.client
import itertools
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Hop-by-hop headers (RFC 9110, 7.6.1) are the proxy's own, never forwarded.
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
}


def main() -> None:
    port, log_path, backends = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    turns = itertools.cycle(backends)
    lock = threading.Lock()
    log = open(log_path, "a", buffering=1, encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def forward(self) -> None:
            with lock:
                backend = next(turns)
            status, reply_headers, reply = 502, [], b"backend unreachable"
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                # the smoke test sends none; refused rather than misread
                status, reply = 501, b"chunked request bodies are not proxied"
                self.close_connection = True
            else:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP
                }
                target = urllib.parse.urlsplit(backend)
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    status, reply = answer.status, answer.read()
                    reply_headers = [
                        (k, v)
                        for k, v in answer.getheaders()
                        if k.lower() not in HOP_BY_HOP | {"content-length", "date", "server"}
                    ]
                except (OSError, http.client.HTTPException):
                    pass
                finally:
                    conn.close()
            with lock:
                log.write(f"{backend} {status} {self.command} {self.path}\n")
            self.send_response(status)
            for k, v in reply_headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = forward

        def log_message(self, format: str, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
