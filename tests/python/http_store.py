"""Test helpers: static files served over HTTP/1.1 on 127.0.0.1 with byte ranges, as object
stores and CDNs serve them."""

import http.server
import io
import os
import socket
import struct
import threading
import time


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with byte ranges and Last-Modified (conditional requests ignored)."""

    send_last_modified = True

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            self.send_error(404)
            return None
        data = open(path, "rb").read()  # noqa: SIM115 - test files are small
        modified = self.date_time_string(int(os.stat(path).st_mtime))
        spec = self.headers.get("Range")
        if spec:
            start, _, end = spec.removeprefix("bytes=").partition("-")
            start = int(start)
            end = min(int(end) if end else len(data) - 1, len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            data = data[start : end + 1]
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        if self.send_last_modified:  # as http.server and every web server do
            self.send_header("Last-Modified", modified)
        self.end_headers()
        return io.BytesIO(data)


class CountingHandler(RangeHandler):
    """RangeHandler that takes 20 ms per request and counts the GETs in flight (reads; a HEAD
    asks only for the size and version), in all (server.most) and per path
    (server.most_of)."""

    def send_head(self):
        if self.command != "GET":
            return super().send_head()
        with self.server.lock:
            self.server.active[self.path] = self.server.active.get(self.path, 0) + 1
            in_flight = sum(self.server.active.values())
            self.server.most = max(self.server.most, in_flight)
            most = self.server.most_of.get(self.path, 0)
            self.server.most_of[self.path] = max(most, self.server.active[self.path])
        try:
            time.sleep(0.02)
            return super().send_head()
        finally:
            with self.server.lock:
                self.server.active[self.path] -= 1


class SlowBodyHandler(RangeHandler):
    """RangeHandler that sends bodies at 640 KB/s (64 KiB per 100 ms), counting in
    server.sending those being sent; with first_range_fast, a range from byte 0 goes at once."""

    first_range_fast = False

    def copyfile(self, source, outputfile):
        if self.first_range_fast and self.headers.get("Range", "").startswith("bytes=0-"):
            return super().copyfile(source, outputfile)
        with self.server.lock:
            self.server.sending = getattr(self.server, "sending", 0) + 1
        try:
            while piece := source.read(64 << 10):
                outputfile.write(piece)
                time.sleep(0.1)
        except OSError:  # the client went away: the request was cancelled
            pass
        finally:
            with self.server.lock:
                self.server.sending -= 1
        return None


class RandomFaultsHandler(RangeHandler):
    """RangeHandler whose GETs fail at random, as server.rates = {"500": p, "reset": p,
    "stall": p} says (server.draws: a random.Random): a 500 before the body; the connection
    reset half way through the body; the body stalled half way for server.stall_s seconds,
    then the connection closed. server.met counts the faults served."""

    def send_head(self):
        fault = None
        if self.command == "GET":
            with self.server.lock:
                draw = self.server.draws.random()
                for name, rate in self.server.rates.items():
                    if draw < rate:
                        fault = name
                        self.server.met[name] = self.server.met.get(name, 0) + 1
                        break
                    draw -= rate
        if fault == "500":
            self.send_error(500)
            return None
        body = super().send_head()
        if fault is None or body is None:
            return body
        self.fault = fault
        return body

    def copyfile(self, source, outputfile):
        fault = getattr(self, "fault", None)
        if fault is None:
            return super().copyfile(source, outputfile)
        data = source.getvalue()
        outputfile.write(data[: len(data) // 2])
        outputfile.flush()
        if fault == "stall":
            time.sleep(self.server.stall_s)
        else:  # an abortive close: the client sees a reset, not a clean end
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        return None


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # not socketserver's 5: read-ahead opens many connections at once


def start(root, handler_class=RangeHandler):
    """A threaded server of directory `root` on 127.0.0.1 (shut down by the caller), with
    CountingHandler's counters set, and its base URL."""

    def handler(*args, **kwargs):
        return handler_class(*args, directory=str(root), **kwargs)

    server = _Server(("127.0.0.1", 0), handler)
    server.lock, server.active, server.most, server.most_of = threading.Lock(), {}, 0, {}
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
