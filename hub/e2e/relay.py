"""A TCP relay on a loopback port of its own in front of a hub's port: each connection accepted
on a thread of its own, bytes pumped both ways. Subclasses change what a connection gets
(`serve`): TLS first (tlsproxy.TLSProxy), or a hub dying at a chosen moment
(test_balancer.HubDiesAfterCounting)."""
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
