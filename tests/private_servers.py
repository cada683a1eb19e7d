"""A PostgreSQL cluster and a Redis server of a test's own, to stop, kill and hold half-started.

The outage tests need a store that really goes away under a running App, and the shared servers
(``FW_TEST_POSTGRES_DSN``, ``FW_TEST_REDIS_URL``) serve every other test at the same time, so
each outage runs on a server started here: a throwaway ``initdb`` cluster (created and run as the
``postgres`` user when the tests run as root, as PostgreSQL refuses root) and a ``redis-server``,
each in a temporary folder on a free loopback port, stopped by its own PID or data folder.

The states they can be put in are the ones a restart goes through:

- :meth:`PrivatePostgres.hold_in_recovery` restarts the cluster as a standby with hot standby off:
  it replays, then waits for WAL that never comes, refusing every connection with SQLSTATE 57P03
  (asyncpg's ``CannotConnectNowError``), as a server does while it starts up or recovers, for as
  long as the test needs; :meth:`PrivatePostgres.promote` ends it.
- :meth:`PrivateRedis.start_loading` restarts Redis reading back a dataset slowly (Redis's own
  ``key-load-delay``), so every command answers ``LOADING`` until :meth:`PrivateRedis.finish_loading`;
  :meth:`PrivateRedis.freeze` leaves it hung (connected, answering nothing) until ``thaw``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from local_servers import NotInstalled, free_port


def _postgres_bin() -> Path:
    """The newest installed PostgreSQL's ``bin`` folder (Debian keeps each major apart)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise NotInstalled("PostgreSQL's initdb is not installed (apt-get install postgresql)")
    return Path(initdb).parent


class PrivatePostgres:
    """A cluster in ``folder`` with trust authentication, listening on 127.0.0.1 only."""

    def __init__(self, folder: Path) -> None:
        self.bin = _postgres_bin()
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        # No durability needed for a test's data; the socket in the folder, not in /var/run.
        options = f"fsync = off\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{folder}'\n"
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(options + f"port = {self.port}\n")

    def _run(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)

    def _ctl(self, *args: str) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), *args)

    def start(self) -> None:
        self._ctl("-w", "start")

    def stop(self) -> None:
        """As the server going down hard (its next start replays the WAL): nothing answers the port."""
        self._ctl("-w", "-m", "immediate", "stop")

    def hold_in_recovery(self) -> None:
        """Start as a standby that accepts no connection; returns once it refuses them as starting."""
        (self.data / "standby.signal").write_text("")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("hot_standby = off\n")
        self._ctl("-W", "start")
        deadline = time.monotonic() + 60
        while self._readiness() != 1:  # pg_isready: 1 is "rejecting connections" (starting up)
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL never reached recovery:\n{self.log()}")
            time.sleep(0.05)

    def promote(self) -> None:
        """End recovery: the cluster becomes a primary again and accepts connections."""
        self._ctl("-w", "promote")

    def _readiness(self) -> int:
        command = [str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]
        return subprocess.run(command, timeout=30).returncode

    def log(self) -> str:
        path = self.folder / "log"
        return path.read_text()[-3000:] if path.exists() else ""

    def close(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self.stop()


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started cluster of the caller's own, removed afterwards.

    Its folder is under the system's temporary folder, not pytest's (which only root may enter).
    """
    folder = Path(tempfile.mkdtemp(prefix="fw-private-pg-"))
    try:
        server = PrivatePostgres(folder)
        server.start()
        try:
            yield server
        finally:
            server.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class PrivateRedis:
    """A ``redis-server`` keeping its dataset in ``folder`` (saved on demand), on a free port."""

    def __init__(self, folder: Path) -> None:
        if shutil.which("redis-server") is None:
            raise NotInstalled("redis-server is not installed (apt-get install redis-server)")
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, *options: str) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                *("--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder)),
                *("--save", "", "--appendonly", "no", "--enable-debug-command", "local"),
                *options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on 127.0.0.1:{self.port}")
            time.sleep(0.05)

    def _answers(self) -> bool:
        """True once the server answers anything (``LOADING`` included)."""
        reply = self.cli("ping", check=False)
        return reply.returncode == 0 and bool(reply.stdout.strip())

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = ["redis-cli", "-h", "127.0.0.1", "-p", str(self.port), *args]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=30)

    def save(self, extra_keys: int = 0) -> None:
        """Write the dataset to disk, with ``extra_keys`` filler keys added first."""
        if extra_keys:
            self.cli("debug", "populate", str(extra_keys), "fw-filler")
        self.cli("save")

    def kill(self) -> None:
        """SIGKILL: the server is gone at once, its connections reset, nothing saved."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)
            self.process = None

    def freeze(self) -> None:
        """SIGSTOP: the server keeps its connections and its port but answers nothing."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def start_loading(self) -> None:
        """Start reading the saved dataset back slowly: every command then answers ``LOADING Redis
        is loading the dataset in memory`` (a dataset saved with 100,000 filler keys takes more
        than 100 seconds) until :meth:`finish_loading`."""
        # A millisecond per key read, clients served after every kilobyte of the file.
        self.start("--key-load-delay", "1000", "--loading-process-events-interval-bytes", "1024")
        if "LOADING" not in self.cli("ping", check=False).stdout:
            raise RuntimeError("redis-server was not loading its dataset")

    def finish_loading(self) -> None:
        """Let the load run at full speed; returns once Redis serves commands."""
        self.cli("config", "set", "key-load-delay", "0")
        deadline = time.monotonic() + 30
        while self.cli("ping", check=False).stdout.strip() != "PONG":
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server never finished loading")
            time.sleep(0.05)

    def close(self) -> None:
        if self.process is not None:
            self.thaw()  # a stopped process is killed all the same, but let it go cleanly
        self.kill()


@contextlib.contextmanager
def private_redis(folder: Path) -> Iterator[PrivateRedis]:
    """A started ``redis-server`` of the caller's own, killed afterwards."""
    server = PrivateRedis(folder)
    server.start()
    try:
        yield server
    finally:
        server.close()
