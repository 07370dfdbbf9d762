"""An S3 endpoint of our own on a local socket: what each PUT sent it, and the answers S3
gives."""

import contextlib
import socket
import threading


@contextlib.contextmanager
def listening(handle):
    """A listener on a free local port whose connections go to `handle` as they are accepted,
    until the block ends; its address."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve_forever():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            handle(connection)

    thread = threading.Thread(target=serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()


@contextlib.contextmanager
def fake_s3(stored_already=False, busy=0, region=None):
    """An S3 endpoint on a socket, and the (headers, body) of each PUT it was sent. Every key
    exists (412 after the headers) or none does (100 Continue when asked, the body read, 200;
    503 SlowDown to the first `busy` PUTs). With `region`, the bucket is there: a PUT signed
    for another region is answered 301 PermanentRedirect naming it (before a body it was
    asked to wait for is sent)."""
    slow_down = (
        b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
        b"<Message>Please reduce your request rate.</Message></Error>"
    )
    error = (
        b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code>'
        b"<Message>At least one of the pre-conditions you specified did not hold</Message></Error>"
    )
    moved = (
        b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket '
        b"you are attempting to access must be addressed using the specified endpoint.</Message></Error>"
    )
    redirect = (
        b"HTTP/1.1 301 Moved Permanently\r\nx-amz-bucket-region: %s\r\nContent-Type: application/xml\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % ((region or "").encode(), len(moved), moved)
    )
    received = []

    def answer(connection):
        data = b""
        while b"\r\n\r\n" not in data:
            data += connection.recv(65536)
        head, body = data.split(b"\r\n\r\n", 1)
        headers = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:])
        if stored_already:
            connection.sendall(
                b"HTTP/1.1 412 Precondition Failed\r\nContent-Type: application/xml\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(error), error)
            )
            return
        elsewhere = region is not None and f"/{region}/s3/".encode() not in headers[b"Authorization"]
        if elsewhere and headers.get(b"Expect") == b"100-continue":
            received.append((headers, b""))
            connection.sendall(redirect)
            return
        if headers.get(b"Expect") == b"100-continue":
            connection.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        while len(body) < int(headers[b"Content-Length"]):
            body += connection.recv(65536)
        received.append((headers, body))
        if elsewhere:
            connection.sendall(redirect)
            return
        if len(received) <= busy:
            connection.sendall(
                b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(slow_down), slow_down)
            )
            return
        connection.sendall(b'HTTP/1.1 200 OK\r\nETag: "0"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')

    def serve(connection):
        with connection:
            connection.settimeout(5)
            answer(connection)

    with listening(serve) as address:
        yield address, received
