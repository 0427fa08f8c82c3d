"""Starts the built watched-service and talks to it: shared by the integration test, the soak
and the overhead measurement. Python's standard library only."""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
# WATCHED_SERVICE_BINARY: a build elsewhere (perfkit's CI builds every example in one shared folder).
BINARY = os.environ.get("WATCHED_SERVICE_BINARY") or os.path.join(PACKAGE, ".build", "release", "watched-service")


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def free_port():
    """A TCP port on loopback nobody listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """The service as a child process on a free port, its stderr kept in a file beside the stalls."""

    def __init__(self, workdir, threshold_ms=100, probe=True, binary=BINARY, cpus=None, watch="all",
                 resting_look_ms=None, pprof_dir=None, breadcrumb=None, profile_port=None, flight_recorder=True,
                 heap_profile=False):
        os.makedirs(workdir, exist_ok=True)
        self.profile_port = profile_port
        self.stalls_path = os.path.join(workdir, "stalls.jsonl")
        self.log_path = os.path.join(workdir, "service.log")
        # Probe appends: a stalls file left by an earlier run in the same folder would be counted.
        if os.path.exists(self.stalls_path):
            os.remove(self.stalls_path)
        arguments = [binary, "--port", "0", "--stalls", self.stalls_path, "--threshold-ms", str(threshold_ms)]
        arguments += ["--watch", watch]
        if resting_look_ms:
            arguments += ["--resting-look-ms", str(resting_look_ms)]
        if pprof_dir:
            os.makedirs(pprof_dir, exist_ok=True)
            arguments += ["--pprof-dir", pprof_dir]
        if breadcrumb:
            arguments += ["--breadcrumb", breadcrumb]
        if profile_port:
            arguments += ["--profile-port", str(profile_port)]
        if heap_profile:
            arguments.append("--heap-profile")
        if not probe:
            arguments.append("--no-probe")
        if not flight_recorder:
            arguments.append("--no-flight-recorder")
        if cpus:
            arguments = ["taskset", "-c", cpus] + arguments
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = self._wait_for_port(timeout=60)

    def _wait_for_port(self, timeout):
        found = {}

        def read():
            for line in self.process.stdout:
                if "listening on port" in line:
                    found["port"] = int(line.rsplit(" ", 1)[1])
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        check("port" in found, f"the service did not print its port within {timeout} s (log: {self.log_path})")
        return found["port"]

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def get(self, path, connection=None, timeout=30):
        """(status, body, seconds) of one GET; a new connection unless one is given."""
        own = connection is None
        connection = connection or self.connection(timeout)
        started = time.monotonic()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read().decode()
            return response.status, body, time.monotonic() - started
        finally:
            if own:
                connection.close()

    def stalls(self):
        if not os.path.exists(self.stalls_path):
            return []
        with open(self.stalls_path) as file:
            return [json.loads(line) for line in file if line.strip()]

    def metric(self, name):
        """{labels text: value} of one metric in /metrics."""
        status, body, _ = self.get("/metrics")
        check(status == 200, f"/metrics answered {status}")
        values = {}
        for line in body.splitlines():
            if line.startswith(name + "{") or line.startswith(name + " "):
                key, value = line.rsplit(" ", 1)
                values[key[len(name):]] = float(value)
        return values

    def rss_kib(self):
        return self.memory_kib().get("rss")

    def memory_kib(self):
        """Resident memory in KiB from /proc/PID/status: rss (VmRSS) = anon (RssAnon: heap, stacks,
        the program's own writes) + file (RssFile: mapped files' pages, the executable's, shared
        libraries' and mmapped data files', all backed by the page cache) + shmem (RssShmem)."""
        names = {"VmRSS:": "rss", "RssAnon:": "anon", "RssFile:": "file", "RssShmem:": "shmem"}
        values = {}
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                key = line.split(None, 1)[0] if line.strip() else ""
                if key in names:
                    values[names[key]] = int(line.split()[1])
        return values

    def rss_by_mapping_kib(self):
        """Resident KiB per kind of mapping from /proc/PID/smaps: {"FILE perms": KiB} for file
        mappings (a module's code, its read-only data, …), "[heap]" (malloc's main arena), "[stack]"
        and the like by name, and anonymous ones by what they look like: "[malloc arena]" (glibc
        maps each thread arena 64 MiB-aligned), "[thread stack]" (read-write right above a no-access
        guard) or "[anon]" (malloc's large blocks, the app's and runtimes' own mmaps), each summed
        over the mappings of that name and permissions; {} when unreadable. Walks every mapping:
        read it now and then, not in a hot loop."""
        arena_alignment = 64 << 20
        values, key, previous = {}, None, None  # previous: (end, perms, anonymous) of the mapping before
        try:
            with open(f"/proc/{self.process.pid}/smaps") as smaps:
                for line in smaps:
                    fields = line.split()
                    if fields and not fields[0].endswith(":"):  # "start-end perms offset dev inode [path]"
                        start, end = (int(bound, 16) for bound in fields[0].split("-"))
                        anonymous = len(fields) <= 5
                        name = fields[5] if not anonymous else "[anon]"
                        if anonymous and start % arena_alignment == 0:
                            name = "[malloc arena]"
                        elif anonymous and fields[1] == "rw-p" and previous == (start, "---p", True):
                            name = "[thread stack]"
                        key, previous = f"{name} {fields[1]}", (end, fields[1], anonymous)
                    elif key and fields[:1] == ["Rss:"]:
                        values[key] = values.get(key, 0) + int(fields[1])
        except OSError:
            pass
        return values

    def smaps_rollup_kib(self):
        """/proc/PID/smaps_rollup in KiB ({"Rss": …, "Anonymous": …, "Private_Dirty": …, …});
        {} when the kernel has none. Walks every mapping: read it now and then, not in a hot loop."""
        values = {}
        try:
            with open(f"/proc/{self.process.pid}/smaps_rollup") as rollup:
                for line in rollup:
                    fields = line.split()
                    if len(fields) == 3 and fields[0].endswith(":") and fields[2] == "kB":
                        values[fields[0][:-1]] = int(fields[1])
        except OSError:
            pass
        return values

    def descriptors(self):
        """How many file descriptors the service holds now (/proc/PID/fd)."""
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def timers(self):
        """(POSIX timers the service holds now, how many of them signal a thread that no longer
        exists) from /proc/PID/timers; (None, None) where the kernel has no such file. Probe keeps
        a timer per thread it follows (the flight recorder's), so the count follows the threads; a
        timer left behind by a thread that ended is a leak."""
        path = f"/proc/{self.process.pid}/timers"
        if not os.path.exists(path):
            return None, None
        with open(path) as file:
            targets = [line.split("tid.", 1)[1].split()[0] if "tid." in line else None
                       for line in file if line.startswith("notify:")]
        alive = set(os.listdir(f"/proc/{self.process.pid}/task"))
        return len(targets), sum(1 for tid in targets if tid is not None and tid not in alive)

    def terminate(self, timeout=10):
        """SIGTERM; (exit status, seconds until exit)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        self.log.close()
        return status, time.monotonic() - started

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()


def symbols(stack):
    return [frame.get("symbol") or "" for frame in stack]


def loop_of(body):
    """The loop index /fast answers with ("ok event-loop-1")."""
    return int(body.strip().rsplit("-", 1)[1])


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)
