"""The HAProxy configuration the hub package ships (tools/package/hub-deb/haproxy.cfg, installed as
/usr/share/doc/nearcast-hub/examples/haproxy.cfg), rendered to run on this machine in front of
local hubs: its `bind` lines become one plain-HTTP bind on a loopback port (so its HTTPS redirect
goes too), its `server` lines the given hubs, `log`, `user`, `group` and `daemon` go (HAProxy runs
in the foreground as the caller's user), and the global `maxconn` is lowered when asked (one
HAProxy process holds about half its descriptor limit in connections). Everything else (the
timeouts, the health checks on /healthz, `option forwardfor`, the retries and redispatch,
roundrobin, `option http-no-delay`) is the shipped file's. hub/e2e/test_balancer.py and
tools/bench/phones run it."""
import os

SHIPPED_CONFIG = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "package",
                                               "hub-deb", "haproxy.cfg"))


def render_haproxy_config(shipped: str, frontend_port: int, hub_ports, stats_socket=None, maxconn=None, no_delay=True) -> str:
    """The shipped configuration with these ports; a stats socket (admin level) when given,
    `maxconn` lowered when given, and without `option http-no-delay` when `no_delay` is false
    (HAProxy's default, to measure what the option is worth)."""
    lines, bound, served = [], False, False
    for line in shipped.splitlines():
        words = line.split()
        first = words[0] if words else ""
        if first in ("log", "user", "group", "daemon") or line.strip().startswith("http-request redirect"):
            continue
        if not no_delay and line.strip() == "option http-no-delay":
            continue
        if first == "maxconn" and line.startswith("    ") and maxconn is not None:
            lines.append(f"    maxconn {maxconn}")
            continue
        if first == "bind":
            if not bound:
                lines.append(f"    bind 127.0.0.1:{frontend_port}")
                bound = True
            continue
        if first == "server":
            if not served:
                lines += [f"    server hub{n} 127.0.0.1:{port}" for n, port in enumerate(hub_ports, 1)]
                served = True
            continue
        lines.append(line)
        if line.strip() == "global" and stats_socket:
            lines.append(f"    stats socket {stats_socket} mode 600 level admin")
    if not (bound and served):
        raise ValueError(f"{SHIPPED_CONFIG}: no bind or no server line to replace")
    return "\n".join(lines) + "\n"
