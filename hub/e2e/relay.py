"""A TCP relay on a loopback port of its own in front of a hub's port: each connection accepted
on a thread of its own, bytes pumped both ways. Subclasses change what a connection gets
(`serve`): TLS first (tlsproxy.TLSProxy), or an answer lost after the hub counted a reaction
(`AnswerLostAfterCounting`: the answer to a request the hub carried out lost, as when the hub
dies at that moment, or a balancer's 502 in its place)."""
import re
import socket
import threading


class Relay:
    def __init__(self, backend_port: int):
        self.backend_port = backend_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(client,), daemon=True).start()

    def serve(self, client: socket.socket):
        """Relays `client` to the backend until either side ends."""
        self.relay(client, socket.create_connection(("127.0.0.1", self.backend_port)))

    @staticmethod
    def relay(client: socket.socket, backend: socket.socket, first: bytes = b""):
        """`first` (what was read from `client` already) to `backend`, then bytes both ways
        until either side ends; both are shut then."""
        def pump(source, target):
            try:
                while data := source.recv(65536):
                    target.sendall(data)
            except OSError:
                pass
            finally:
                for end in (source, target):
                    try:
                        end.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        try:
            backend.sendall(first)
        except OSError:
            pass
        threading.Thread(target=pump, args=(backend, client), daemon=True).start()
        pump(client, backend)

    def close(self):
        self.listener.close()


class AnswerLostAfterCounting(Relay):
    """A relay in front of one hub that loses the answer to a request the hub carried out (a
    reaction counted, a page turned): the first request starting with `taking` (by default
    `POST /v1/reactions `) it sees while `armed` goes to the hub, the hub's answer is awaited
    (202: the reaction's batch is written, counted; 200: the page is turned), and the client is
    sent `reply` instead: nothing (both connections close, which is what HAProxy sees when a hub
    gets SIGKILL at that moment), or a 502 (what a balancer says when it lost the hub and does not
    retry). With `forward` false the request is not sent to the hub at all, only answered `reply`
    (HAProxy's 408 when a body came too late). Everything else is relayed byte for byte, one request a connection (each request's
    `Connection` is made `close`, so a browser or HAProxy opens a connection per request and every
    request is seen here)."""

    BAD_GATEWAY = b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Time-out\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"

    def __init__(self, hub_port: int, reply: bytes = b"", taking: bytes = b"POST /v1/reactions "):
        self.armed = threading.Event()
        self.reply = reply
        self.taking = taking
        self.forward = True
        self.dropped = []   # the hub's status line for each answer lost
        super().__init__(hub_port)

    def serve(self, client: socket.socket):
        upstream = None
        try:
            upstream = socket.create_connection(("127.0.0.1", self.backend_port))
            data = self.read_until(client, b"\r\n\r\n")
            if b"\r\n\r\n" not in data:
                return
            head, _, body = data.partition(b"\r\n\r\n")
            head = re.sub(rb"(?im)^connection:[^\r\n]*\r\n?", b"", head).rstrip(b"\r\n") + b"\r\nConnection: close"
            if not (head.startswith(self.taking) and self.armed.is_set()):
                self.relay(client, upstream, first=head + b"\r\n\r\n" + body)
                return
            self.armed.clear()
            length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))
            while len(body) < length:
                body += client.recv(65536)
            if self.forward:
                upstream.sendall(head + b"\r\n\r\n" + body)
                self.dropped.append(self.read_until(upstream, b"\r\n").split(b"\r\n")[0].decode())
            else:
                self.dropped.append("not sent to the hub")
            client.sendall(self.reply)
            # Both close in `finally`: the request was taken, its answer is lost.
        except OSError:
            pass
        finally:
            client.close()
            if upstream is not None:
                upstream.close()

    @staticmethod
    def read_until(source: socket.socket, marker: bytes) -> bytes:
        """What `source` sends until `marker` has come, or until it closes."""
        data = b""
        while marker not in data:
            chunk = source.recv(65536)
            if not chunk:
                break
            data += chunk
        return data
