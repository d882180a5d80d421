"""The external policy `bgbench.gym` names: it hands its protocol channels (file descriptors
3 and 4, docs/protocol.md) to the environment, which then answers bgbench itself.

    python3 -I -S _relay.py SOCKET

It connects to the Unix socket SOCKET (in the environment's private temporary folder),
sends both descriptors over it (SCM_RIGHTS), closes its own copies and waits until the
environment closes the socket; then it exits, as bgbench expects its policy to at the end.
Nothing is copied through it: the environment reads and writes bgbench's pipes directly.
It imports `_socket`, not `socket` (whose imports take 20 ms more of every episode's
start), and no site packages.
"""

import _socket
import os
import sys


def main() -> None:
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    connection.connect(sys.argv[1])
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (3, 4))  # a C int[2]
    connection.sendmsg([b"3,4"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    os.close(3)
    os.close(4)
    while connection.recv(64):
        pass


if __name__ == "__main__":
    main()
