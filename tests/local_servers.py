"""The local stand-ins for the cloud stores, started on free loopback ports: a moto server for
DynamoDB and Google's Firestore emulator. Shared by the test fixtures (tests/conftest.py, which
turn :class:`NotAvailable` into a visible skip or failure) and benchmarks/session_resolution.py.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: Throwaway credentials: moto accepts any, and aiobotocore insists on some.
AWS_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


class NotInstalled(Exception):
    """The server's program is missing on this machine (a skip, with this message)."""


class DidNotStart(Exception):
    """The program is there but the server never answered (a failure, with its log)."""


def free_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stop(process: subprocess.Popen[Any]) -> None:
    """End a server process: asked to stop, killed if it is still running ten seconds later."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def serve_moto(host: str, port: int) -> None:
    """Serve moto as ``moto_server`` does, but one request at a time.

    ``moto_server`` handles requests on concurrent threads without locking an item between a
    condition and its write, so two concurrent conditional writes can both succeed, which
    DynamoDB never allows. Holding one lock around each request keeps connections threaded and
    makes every request atomic, as DynamoDB's are per item: the conflict tests then test fw.
    """
    import threading

    from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import run_simple

    application = DomainDispatcherApplication(create_backend_app)
    one_at_a_time = threading.Lock()

    def serialized(environ: Any, start_response: Any) -> list[bytes]:
        with one_at_a_time:
            return list(application(environ, start_response))

    os.environ.setdefault("MOTO_PORT", str(port))
    run_simple(host, port, serialized, threaded=True, request_handler=MotoRequestHandler)


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """A moto server (its in-process mock does not reach aiobotocore) answering one request at a
    time (:func:`serve_moto`), with throwaway AWS credentials in the environment while it runs;
    its URL. Stopped by its PID."""
    if importlib.util.find_spec("moto") is None or importlib.util.find_spec("werkzeug") is None:
        raise NotInstalled(
            "moto's server is not installed (pip install 'moto[server]', part of fw-web[test])"
        )
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "127.0.0.1", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    saved = {name: os.environ.get(name) for name in AWS_ENVIRONMENT}
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise DidNotStart(f"moto_server did not start on 127.0.0.1:{port}") from None
                time.sleep(0.1)
        os.environ.update(AWS_ENVIRONMENT)
        yield f"http://127.0.0.1:{port}"
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        stop(process)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def firestore_emulator(folder: Path, mode: str = "datastore-mode") -> Iterator[str]:
    """Run Google's Firestore emulator in ``mode``; ``host:port`` while it runs.

    It is stopped with its whole process group: the ``gcloud`` wrapper starts a Java server that
    would otherwise outlive its caller.
    """
    gcloud = shutil.which("gcloud")
    if gcloud is None:
        raise NotInstalled(
            "gcloud is not installed: the Firestore emulator cannot run (bash .ci/run needs it)"
        )
    host = f"127.0.0.1:{free_port()}"
    log = folder / "emulator.log"
    command = [gcloud, "emulators", "firestore", "start", f"--database-mode={mode}", f"--host-port={host}"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "CLOUDSDK_CORE_DISABLE_PROMPTS": "1"},
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while not _answers(f"http://{host}/"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise DidNotStart(f"the Firestore emulator did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.25)
        yield host
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


if __name__ == "__main__":  # the moto server process of moto_server()
    serve_moto(sys.argv[1], int(sys.argv[2]))
